"""OPTIONS, and 405s, name every method a path takes.

FastAPI makes one route per method, so Starlette's 405 for `/personas/{id}` named only the first route's method
(GET, not DELETE) in its Allow header, and OPTIONS itself was such a 405. Here the routes matching the path are
asked together (in the OpenAPI schema: FastAPI's route tree is private): OPTIONS answers 204 with all of them, and
a 405 for another method lists them all in its Allow header.
"""

from __future__ import annotations

import re

from starlette.datastructures import MutableHeaders
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

HTTP_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}


class AllowedMethods:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._paths: list[tuple[re.Pattern, set[str]]] | None = None

    def _documented(self, scope: Scope) -> list[tuple[re.Pattern, set[str]]]:
        """Each documented path template (the OpenAPI schema: FastAPI's own route tree is private) and its methods."""
        if self._paths is None:
            self._paths = [
                (compile_path(path)[0], {m.upper() for m in operations if m.upper() in HTTP_METHODS})
                for path, operations in scope["app"].openapi()["paths"].items()
            ]
        return self._paths

    def _methods(self, scope: Scope) -> set[str]:
        """The documented methods of the path (routes kept out of the schema, HEAD /healthz, add their own)."""
        methods: set[str] = set()
        for pattern, taken in self._documented(scope):
            if pattern.match(scope["path"]):
                methods |= taken
        return methods

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        methods = self._methods(scope)
        if scope["method"] == "OPTIONS" and methods:
            await Response(status_code=204, headers={"Allow": ", ".join(sorted(methods | {"OPTIONS"}))})(
                scope, receive, send
            )
            return

        async def allow_all(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 405:
                headers = MutableHeaders(scope=message)
                named = {m.strip() for m in headers.get("allow", "").split(",") if m.strip()}
                headers["Allow"] = ", ".join(sorted(named | methods | {"OPTIONS"}))
            await send(message)

        await self.app(scope, receive, allow_all)
