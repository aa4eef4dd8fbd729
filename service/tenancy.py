"""Tenants: each API key belongs to one namespace, and everything a request reads or writes is scoped by it.

`TWINSIM_API_KEY` lists keys, each optionally `KEY:TENANT`: a key without a tenant belongs to the `default`
tenant (so a deployment, or a store, from before tenants keeps working unchanged), and `KEY:*` is an admin
key that sees every tenant. Without keys there is one user, the `default` tenant.

The tenant travels with the request as a context variable, set once by the key check. The stores read it
(`TenantScopedStore` for personas and memories, `ExperimentStore` and the simulation jobs for runs), so every
route, including routes added later, is scoped without passing it by hand; worker threads that outlive the
request run in a copy of the request's context.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

DEFAULT_TENANT = "default"
ADMIN = "*"
TENANT_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")

_current: ContextVar[str] = ContextVar("twinsim_tenant", default=DEFAULT_TENANT)


def current_tenant() -> str:
    """The tenant this code runs for: the caller's, `*` for an admin key, `default` outside any request."""
    return _current.get()


def set_current_tenant(tenant: str) -> None:
    _current.set(tenant)


@contextmanager
def acting_as(tenant: str) -> Iterator[None]:
    token = _current.set(tenant)
    try:
        yield
    finally:
        _current.reset(token)


def parse_keys(secret: str) -> list[tuple[bytes, str]]:
    """`key`, `key:tenant` or `key:*`, comma-separated -> (key, tenant) pairs; ValueError names a bad tenant."""
    pairs = []
    for entry in (e.strip() for e in secret.split(",")):
        if not entry:
            continue
        key, _, tenant = entry.rpartition(":") if ":" in entry else (entry, "", DEFAULT_TENANT)
        key, tenant = key.strip(), tenant.strip() or DEFAULT_TENANT
        if tenant != ADMIN and not TENANT_PATTERN.match(tenant):
            raise ValueError(f"tenant '{tenant}' must be 1-32 lower-case letters, digits or '-' (or * for admin)")
        if not key:
            raise ValueError("an API key entry has a tenant but no key")
        pairs.append((key.encode(), tenant))
    return pairs


def tenants_of(secret: str | None) -> frozenset[str]:
    """The named tenants (not default, not admin): whose ids carry a prefix in a shared store."""
    if not secret:
        return frozenset()
    return frozenset(t for _, t in parse_keys(secret) if t not in (DEFAULT_TENANT, ADMIN))
