"""Per-key rate limits: one token bucket per API key (or client address), in this process's memory.

Each replica limits on its own, so a cluster allows about replicas x rate per key; that is the price of
keeping replicas stateless (no shared store on the request path). The number of buckets is bounded, so a
flood of made-up keys cannot grow memory without end: the least recently seen bucket is dropped first.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable

from fastapi import HTTPException, Request, status

from service.api.security import presented_key


class TokenBucketLimiter:
    """`rate` tokens per second refill a bucket of `burst` tokens; a request takes one token."""

    def __init__(
        self, rate: float, burst: int, *, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate, self.burst, self._max_keys, self._clock = rate, burst, max_keys, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key -> (tokens, last refill)

    def acquire(self, key: str) -> float:
        """0 when the request may go ahead, else the seconds until a token is free (nothing taken)."""
        now = self._clock()
        tokens, last = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self._max_keys:
            self._buckets.popitem(last=False)
        return wait


def client_key(request: Request) -> str:
    """Who is asking: a digest of the presented API key (raw keys are never kept), else the client address."""
    supplied = presented_key(request)
    if supplied:
        return "key:" + hashlib.sha256(supplied.encode()).hexdigest()[:32]
    return "addr:" + (request.client.host if request.client else "unknown")


async def enforce_rate_limit(request: Request) -> None:
    """FastAPI dependency: 429 with Retry-After when this key's bucket is empty. Async: no lock needed."""
    limiter: TokenBucketLimiter | None = getattr(request.app.state, "rate_limiter", None)
    if limiter is None:
        return
    wait = limiter.acquire(client_key(request))
    if wait > 0:
        request.app.state.metrics.rate_limited.inc()
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"rate limit of {limiter.rate:g} requests/s (burst {limiter.burst}) exceeded for this key; retry later",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )


def build_limiter(rate_per_s: float | None, burst: int | None) -> TokenBucketLimiter | None:
    if rate_per_s is None:
        return None
    return TokenBucketLimiter(rate_per_s, burst or max(1, math.ceil(rate_per_s * 2)))
