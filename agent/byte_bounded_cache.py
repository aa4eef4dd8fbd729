"""An LRU cache bounded in bytes as well as entries, for values whose size follows from their inputs.

functools.lru_cache counts entries only: 64 cached pages of 1.5 MB each held ~300 MB for good. Here each entry
is charged a size (a caller's estimate from the arguments and the result) and the least recently used entries go
while the total is over `max_bytes` or the count over `max_entries`. A value larger than the whole budget is
returned but not kept. Exceptions are not cached, as with lru_cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any


def byte_bounded_cache(
    max_entries: int, max_bytes: int, size_of: Callable[[tuple, Any], int]
) -> Callable[[Callable], Callable]:
    """Decorator: cache by positional arguments (all hashable); `size_of(args, value)` is an entry's bytes."""

    def decorate(function: Callable) -> Callable:
        entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        guard = threading.Lock()
        held = [0]

        @wraps(function)
        def cached(*args: Hashable) -> Any:
            with guard:
                hit = entries.get(args)
                if hit is not None:
                    entries.move_to_end(args)
                    return hit[0]
            value = function(*args)  # outside the lock: two threads may read one page at once, never wait on it
            size = size_of(args, value)
            if size > max_bytes:
                return value
            with guard:
                if args in entries:
                    held[0] -= entries.pop(args)[1]
                entries[args] = (value, size)
                held[0] += size
                while held[0] > max_bytes or len(entries) > max_entries:
                    held[0] -= entries.popitem(last=False)[1][1]
            return value

        def cache_info() -> dict[str, int]:
            with guard:
                return {"entries": len(entries), "bytes": held[0]}

        def cache_clear() -> None:
            with guard:
                entries.clear()
                held[0] = 0

        cached.cache_info = cache_info  # type: ignore[attr-defined]  # an attribute of the function, as lru_cache's
        cached.cache_clear = cache_clear  # type: ignore[attr-defined]  # an attribute of the function, as lru_cache's
        return cached

    return decorate
