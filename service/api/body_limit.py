"""Request bodies capped as they arrive, refused in the JSON shape of every other refusal.

FastAPI's own `max_body_size` answers a body announced over the limit (Content-Length) with a plain-text
"Content Too Large", replacing whatever JSON a middleware had sent. Here one pure ASGI middleware does both
cases: a Content-Length over the limit is refused before the app runs; a chunked body is counted as it arrives
and refused when it passes the limit (an HTTPException, which the app answers as JSON), never buffered whole.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.reason = f"request body over {max_bytes} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length", "").strip()
        if length.isdigit() and int(length) > self.max_bytes:
            await JSONResponse({"detail": self.reason}, status_code=413)(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise HTTPException(413, self.reason)
            return message

        await self.app(scope, counted, send)
