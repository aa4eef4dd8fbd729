"""Optional API keys, compared in constant time.

`TWINSIM_API_KEY` holds one key or several separated by commas (one per client or team, so each gets its
own rate-limit bucket and a key can be rotated without downtime). Every configured key is compared with
`hmac.compare_digest`, with no early exit, so timing reveals neither which key nor how much of it matched.
"""

from __future__ import annotations

import hmac

from fastapi import HTTPException, Request, status


def configured_keys(secret: str) -> list[bytes]:
    return [key.strip().encode() for key in secret.split(",") if key.strip()]


def presented_key(request: Request) -> str | None:
    supplied = request.headers.get("x-api-key")
    if supplied is None:
        auth = request.headers.get("authorization", "")
        supplied = auth[7:] if auth.lower().startswith("bearer ") else None
    return supplied


def require_api_key(request: Request) -> None:
    expected = request.app.state.settings.api_key
    if expected is None:
        return
    supplied = presented_key(request)
    matched = False
    if supplied is not None:
        candidate = supplied.encode()
        for key in configured_keys(expected.get_secret_value()):
            matched |= hmac.compare_digest(candidate, key)
    if not matched:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or wrong API key (X-API-Key or Authorization: Bearer)")
