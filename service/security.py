"""Optional API-key check, compared in constant time."""

from __future__ import annotations

import hmac

from fastapi import HTTPException, Request, status


def require_api_key(request: Request) -> None:
    expected = request.app.state.settings.api_key
    if expected is None:
        return
    supplied = request.headers.get("x-api-key")
    if supplied is None:
        auth = request.headers.get("authorization", "")
        supplied = auth[7:] if auth.lower().startswith("bearer ") else None
    if supplied is None or not hmac.compare_digest(supplied.encode(), expected.get_secret_value().encode()):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or wrong API key (X-API-Key or Authorization: Bearer)")
