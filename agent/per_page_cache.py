"""A value computed once per Observation object and kept for the last few objects seen.

An Observation is immutable, and the page reader hands back the same object for the same page
(agent/page/read_page.py), so what is derived from a page (the embedded brain's index, the ranker's vectors)
can be keyed by the object's identity: a population of twins on one page computes it once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from agent.page.observation import Observation

T = TypeVar("T")


class PerObservation(Generic[T]):
    """`cache(observation)` builds on first use (outside the lock) and keeps the last `size`; when two threads
    build for the same object at once, both get the one kept first."""

    def __init__(self, build: Callable[[Observation], T], size: int) -> None:
        self._build = build
        self._size = size
        self._entries: OrderedDict[int, tuple[Observation, T]] = OrderedDict()
        self._lock = threading.Lock()

    def _kept(self, observation: Observation) -> tuple[T] | None:
        entry = self._entries.get(id(observation))
        if entry is not None and entry[0] is observation:  # an id is reused only after its object is gone
            self._entries.move_to_end(id(observation))
            return (entry[1],)
        return None

    def __call__(self, observation: Observation) -> T:
        with self._lock:
            kept = self._kept(observation)
        if kept is not None:
            return kept[0]
        built = self._build(observation)
        with self._lock:
            kept = self._kept(observation)
            if kept is not None:
                return kept[0]
            self._entries[id(observation)] = (observation, built)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return built

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
