"""At most N LLM calls in flight to one provider across a whole Ray cluster, not N per worker process.

Why: a provider's rate limit is the provider's, not one process's. With LLM-brain units spread over Ray workers, a
limit kept in each process lets (limit x worker processes) calls in flight, and the provider answers with 429s. So in
a Ray worker the slots are kept by one small actor per set of limits, named, detached and without a CPU of its own,
which every worker asks for a slot and tells when done.

A slot is a lease: the worker says how long its call may take at most (the client's hard deadline), and a slot not
given back by then is taken back, so a worker killed mid-call holds its slot only until its call would have timed out.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

NAMESPACE = "twinsim"
DEFAULT_HOLD_S = 600.0  # a slot asked for without a deadline is taken back after this long


class SlotKeeper:
    """The cluster's slots per provider (an async actor: waiting callers do not block the others)."""

    def __init__(self, limits: dict[str, int], default: int) -> None:
        self.limits, self.default = limits, default
        self.leases: dict[str, dict[str, float]] = {}  # provider -> {token: when it lapses}
        self.changed = asyncio.Condition()
        self.most_in_flight: dict[str, int] = {}

    def _held(self, provider: str) -> dict[str, float]:
        held = self.leases.setdefault(provider, {})
        now = time.monotonic()
        for token in [t for t, lapses in held.items() if lapses <= now]:
            del held[token]  # its holder died or hung past its own deadline
        return held

    async def acquire(self, provider: str, hold_s: float) -> str:
        async with self.changed:
            while True:
                held = self._held(provider)
                if len(held) < self.limits.get(provider, self.default):
                    token = uuid.uuid4().hex
                    held[token] = time.monotonic() + hold_s
                    self.most_in_flight[provider] = max(self.most_in_flight.get(provider, 0), len(held))
                    return token
                next_lapse = min(held.values()) - time.monotonic()
                with contextlib.suppress(TimeoutError):  # woken by a release, or when the first lease lapses
                    await asyncio.wait_for(self.changed.wait(), max(next_lapse, 0.01))

    async def release(self, provider: str, token: str) -> None:
        async with self.changed:
            self.leases.get(provider, {}).pop(token, None)
            self.changed.notify_all()

    def in_flight(self, provider: str) -> tuple[int, int]:
        """(calls holding a slot now, the most there ever were): for tests and operators."""
        return len(self._held(provider)), self.most_in_flight.get(provider, 0)


def keeper_name(limits: Mapping[str, int], default: int) -> str:
    """One keeper per set of limits: a run with other settings never shares, or inherits, another's slots."""
    settings = repr((sorted(limits.items()), default)).encode()
    return f"llm-slots-{hashlib.sha256(settings).hexdigest()[:16]}"


def keeper(limits: Mapping[str, int], default: int) -> Any:
    """The cluster's keeper for these limits (an actor handle), started by whichever worker asks first."""
    import ray

    return (
        ray.remote(num_cpus=0)(SlotKeeper)
        .options(
            name=keeper_name(limits, default),
            namespace=NAMESPACE,
            lifetime="detached",
            get_if_exists=True,
            max_concurrency=1000,  # callers waiting for a slot must not keep the others from releasing theirs
        )
        .remote(dict(limits), default)
    )


class ClusterSlots:
    """`async with slots.slot(provider, hold_s):` holds one of the cluster's slots for that provider."""

    def __init__(self, limits: Mapping[str, int], default: int) -> None:
        self.limits, self.default = dict(limits), default
        self._keeper = keeper(self.limits, default)

    def limit_of(self, provider: str) -> int:
        return self.limits.get(provider, self.default)

    @asynccontextmanager
    async def slot(self, provider: str, hold_s: float | None = None) -> AsyncIterator[None]:
        token = await self._keeper.acquire.remote(provider, hold_s or DEFAULT_HOLD_S)
        try:
            yield
        finally:
            await self._keeper.release.remote(provider, token)

    def __reduce__(self) -> tuple:
        return (ClusterSlots, (self.limits, self.default))
