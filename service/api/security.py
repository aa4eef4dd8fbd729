"""Optional API keys, compared in constant time; each key names its tenant (see service/tenancy.py).

`TWINSIM_API_KEY` holds one key or several separated by commas (one per client or team, so each gets its
own rate-limit bucket and a key can be rotated without downtime), each optionally `KEY:TENANT` or `KEY:*`
(admin). Every configured key is compared with `hmac.compare_digest`, with no early exit, so timing reveals
neither which key nor how much of it matched.
"""

from __future__ import annotations

import hmac

from fastapi import HTTPException, Request, status

from service.tenancy import DEFAULT_TENANT, parse_keys, set_current_tenant


def presented_key(request: Request) -> str | None:
    supplied = request.headers.get("x-api-key")
    if supplied is None:
        auth = request.headers.get("authorization", "")
        supplied = auth[7:] if auth.lower().startswith("bearer ") else None
    return supplied


async def require_api_key(request: Request) -> None:
    """Async on purpose: the tenant it sets is then seen by the route and everything the route calls."""
    expected = request.app.state.settings.api_key
    if expected is None:
        set_current_tenant(DEFAULT_TENANT)
        return
    supplied = presented_key(request)
    tenant = None
    if supplied is not None:
        candidate = supplied.encode()
        for key, owner in parse_keys(expected.get_secret_value()):
            if hmac.compare_digest(candidate, key):  # no early exit: every key is compared
                tenant = owner
    if tenant is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "missing or wrong API key (X-API-Key or Authorization: Bearer)"
        )
    set_current_tenant(tenant)
