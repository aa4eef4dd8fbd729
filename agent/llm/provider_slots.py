"""At most N calls in flight to one LLM provider from this process, whichever client, thread or event loop makes them.

Why here and not only LLMClient.concurrency: that bound is per client and per event loop, and a process holds many
of both (the service's client, one per experiment run, a live simulation's loop, each API request's prediction), so
together they could put any number of calls in flight at one provider and run into its rate limit. A provider is
the server a call goes to: the api_base's origin when one is set (an OpenAI-compatible server), else the model's
litellm prefix (`openai/gpt-4.1` -> `openai`), else the model name. Limits come from settings
(TWINSIM_LLM_PROVIDER_LIMITS per provider, TWINSIM_LLM_PROVIDER_LIMIT for the others). The slots travel to Ray
workers as their limits, and there become the cluster's (agent/llm/cluster_slots.py): all workers together keep to
the limit, not each of them.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol
from urllib.parse import urlsplit

from agent.llm.provider_lock import provider_of

DEFAULT_PROVIDER_LIMIT = 8  # calls in flight to one provider from one process, unless settings say otherwise


class Slots(Protocol):
    """A process's slots (ProviderSlots) or a Ray cluster's (agent/llm/cluster_slots.ClusterSlots)."""

    def slot(self, provider: str, hold_s: float | None = None) -> AbstractAsyncContextManager[None]: ...


def provider_key(model: str, api_base: str | None) -> str:
    """The provider a call to `model` (through `api_base`, if any) goes to, as limits name it."""
    if api_base:
        parts = urlsplit(api_base)
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}".lower()
        return api_base.lower()
    return provider_of(model) or model.lower()


class _Gate:
    """A counting semaphore any event loop of any thread can wait on (asyncio's binds to one loop)."""

    def __init__(self, size: int) -> None:
        self._lock = threading.Lock()
        self._free = size
        self._waiting: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = deque()
        self._handed: set[asyncio.Future] = set()  # woken waiters that own a slot but have not run yet
        self.in_flight = 0
        self.most_in_flight = 0

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._free > 0 and not self._waiting:
                self._take()
                return
            ticket = loop.create_future()
            self._waiting.append((loop, ticket))
        try:
            await ticket
        except asyncio.CancelledError:
            with self._lock:
                if ticket in self._handed:  # a slot was handed over as the wait was cancelled: pass it on
                    self._handed.discard(ticket)
                    self.in_flight -= 1
                    self._pass_on()
                else:
                    self._waiting = deque(w for w in self._waiting if w[1] is not ticket)
            raise
        with self._lock:
            self._handed.discard(ticket)

    def release(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self._pass_on()

    def _take(self) -> None:
        self._free -= 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def _pass_on(self) -> None:
        """Hand the freed slot to the first waiter whose loop still runs, else keep it (lock held)."""
        self._free += 1
        while self._waiting:
            loop, ticket = self._waiting.popleft()
            if ticket.done():
                continue
            self._take()
            self._handed.add(ticket)
            try:
                loop.call_soon_threadsafe(_wake, ticket)
            except RuntimeError:  # that loop is closed: its waiter is gone
                self._handed.discard(ticket)
                self.in_flight -= 1
                self._free += 1
                continue
            return


def _wake(ticket: asyncio.Future) -> None:
    if not ticket.done():
        ticket.set_result(None)


class ProviderSlots:
    """`async with slots.slot(provider):` holds one of that provider's slots for the length of a call."""

    def __init__(self, limits: Mapping[str, int] | None = None, default: int = DEFAULT_PROVIDER_LIMIT) -> None:
        if default < 1 or any(n < 1 for n in (limits or {}).values()):
            raise ValueError("a provider's limit must be at least 1")
        self.limits = {key.lower().rstrip("/"): n for key, n in (limits or {}).items()}
        self.default = default
        self._gates: dict[str, _Gate] = {}
        self._lock = threading.Lock()

    def limit_of(self, provider: str) -> int:
        return self.limits.get(provider, self.default)

    def gate(self, provider: str) -> _Gate:
        with self._lock:
            gate = self._gates.get(provider)
            if gate is None:
                gate = self._gates[provider] = _Gate(self.limit_of(provider))
            return gate

    @asynccontextmanager
    async def slot(self, provider: str, hold_s: float | None = None) -> AsyncIterator[None]:
        """`hold_s`, the call's own deadline, matters only to the cluster's slots: a process that dies frees its own."""
        gate = self.gate(provider)
        await gate.acquire()
        try:
            yield
        finally:
            gate.release()

    def __reduce__(self) -> tuple:
        """Travels (to a Ray worker) as its limits: the cluster's slots there, else the process's (slots_here)."""
        return (slots_here, (tuple(sorted(self.limits.items())), self.default))


_KEPT: dict[tuple, Slots] = {}  # (kind, limits, default) -> this process's slots of that kind
_KEPT_LOCK = threading.Lock()


def _kept(kind: str, limits: tuple[tuple[str, int], ...], default: int) -> Slots:
    key = (kind, tuple(sorted((k.lower().rstrip("/"), n) for k, n in limits)), default)
    with _KEPT_LOCK:
        slots = _KEPT.get(key)
        if slots is None:
            if kind == "process":
                slots = ProviderSlots(dict(key[1]), default)
            else:
                from agent.llm.cluster_slots import ClusterSlots

                slots = ClusterSlots(dict(key[1]), default)
            _KEPT[key] = slots
        return slots


def shared_slots(limits: tuple[tuple[str, int], ...] = (), default: int = DEFAULT_PROVIDER_LIMIT) -> ProviderSlots:
    """The process's slots for these limits: every client built with the same settings counts against the same."""
    slots = _kept("process", limits, default)
    assert isinstance(slots, ProviderSlots)  # the "process" kind is made as one
    return slots


def slots_here(limits: tuple[tuple[str, int], ...] = (), default: int = DEFAULT_PROVIDER_LIMIT) -> Slots:
    """Where slots land when they travel: in a Ray worker, the cluster's for these limits (one keeper for all
    workers); in any other process, the process's own."""
    return _kept("cluster" if _in_ray_worker() else "process", limits, default)


def _in_ray_worker() -> bool:
    """A Ray worker (a task or an actor) has imported ray and runs in its worker mode; the driver does not."""
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized() and ray.get_runtime_context().worker.mode == ray.WORKER_MODE
