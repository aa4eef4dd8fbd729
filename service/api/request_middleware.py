"""Around every request: a request id, the latency, one JSON access-log line and the route's metrics.

Unhandled errors become a JSON 500 that names the request id (the traceback goes to the log only).
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from service.api.request_log import ACCESS_LOGGER

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_log = logging.getLogger(ACCESS_LOGGER)


def request_id_of(request: Request) -> str:
    """The caller's X-Request-ID when it is a sane token (so traces join up), else a new one."""
    supplied = request.headers.get("x-request-id", "")
    return supplied if _REQUEST_ID.match(supplied) else uuid.uuid4().hex


def install_request_middleware(app: FastAPI) -> None:
    metrics = app.state.metrics

    @app.middleware("http")
    async def observe(request: Request, call_next):
        request_id = request_id_of(request)
        request.state.request_id = request_id
        started = time.perf_counter()
        error = None
        try:
            response = await call_next(request)
        except Exception as exc:  # noqa: BLE001 - the one place that turns any crash into a clean 500
            error = exc
            response = JSONResponse({"detail": "internal error", "request_id": request_id}, status_code=500)
        elapsed = time.perf_counter() - started
        route = getattr(request.scope.get("route"), "path", None) or "<unmatched>"
        response.headers["X-Request-ID"] = request_id
        metrics.observe_request(request.method, route, response.status_code, elapsed)
        _log.log(
            logging.ERROR if response.status_code >= 500 else logging.INFO,
            "request",
            extra={
                "request_id": request_id,
                "method": request.method,
                "path": request.url.path,
                "route": route,
                "status": response.status_code,
                "latency_ms": round(elapsed * 1000, 3),
                "client": request.client.host if request.client else None,
            },
            exc_info=error,
        )
        return response
