"""An executor that runs units of work as Ray tasks: experiments' twin runs and evaluations' replayed steps.

Why this shape: a unit's result is a pure function of the unit and the shared work (an experiment unit's seed
comes from (spec, persona, instance) alone; an evaluation step's inputs are the recorded session up to it), so
it is the same wherever it runs, and results identical to the in-process run follow from running the same
function. The work (the prepared experiment or evaluation: personas, pages, recalled memories, the brains) is
serialised once with `ray.put` and shared by every task; tasks take batches of units because one unit costs a
few milliseconds at most, far less than a task's overhead. Results come back in unit order, with a bounded
number of batches in flight, so a stop request or a failed unit leaves nothing half-handed-out and the run
resumes as usual. An address that does not answer fails within seconds (Ray itself retries for minutes).
`ray` is imported lazily: the package works without it (`pip install 'twinsim[ray]'`).
"""

from __future__ import annotations

import socket
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

if TYPE_CHECKING:  # imported where serializers are registered: Ray is optional
    from agent.behaviour.engine import BehaviourEngine

DEFAULT_BATCH = 256
PROBE_TIMEOUT_S = 5.0
Unit = TypeVar("Unit")
Result = TypeVar("Result")


class RayUnavailable(RuntimeError):
    """Ray is not installed or the cluster cannot be reached; the message says which and what to do."""


def _ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise RayUnavailable("TWINSIM_EXECUTOR=ray needs Ray: pip install 'twinsim[ray]'") from None
    return ray


def _engine_params(engine: BehaviourEngine) -> Any:
    return engine.params


def _register_serializers(ray: ModuleType) -> None:
    """The embedded brain's engine holds a lock-guarded per-persona cache that cannot be pickled and need not
    travel: an engine crosses to the workers as its parameters and builds fresh caches there."""
    from agent.behaviour.engine import BehaviourEngine

    ray.util.register_serializer(BehaviourEngine, serializer=_engine_params, deserializer=BehaviourEngine)


def _run_batch(work: Callable[[Unit], Result], units: list[Unit]) -> list[Result]:
    return [work(unit) for unit in units]


def _head_endpoint(address: str) -> tuple[str, int] | None:
    """(host, port) of a `host:port` or `ray://host:port` address; None for "auto" or "local" (nothing to probe)."""
    if address in ("auto", "local"):
        return None
    parts = urlsplit(address if "://" in address else f"//{address}")
    try:
        port = parts.port
    except ValueError:  # a port that is not a number, or out of range
        port = None
    if not parts.hostname or port is None:
        raise RayUnavailable(f"TWINSIM_RAY_ADDRESS {address!r} is not host:port, ray://host:port or auto")
    return parts.hostname, port


def check_reachable(address: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Fail fast on a head that does not answer: `ray.init` would retry it for minutes before giving up."""
    endpoint = _head_endpoint(address)
    if endpoint is None:
        return
    try:
        with socket.create_connection(endpoint, timeout=timeout_s):
            pass
    except OSError as error:
        raise RayUnavailable(f"the Ray head at {address} (TWINSIM_RAY_ADDRESS) does not answer: {error}") from None


class RayExecutor:
    """`map(work, units)` over a Ray cluster: `address` is a head (`host:port`, `ray://host:10001`, "auto"),
    or None for a local Ray started on first use. An already initialised Ray in this process is reused."""

    def __init__(
        self,
        address: str | None = None,
        *,
        batch_size: int = DEFAULT_BATCH,
        max_in_flight: int | None = None,
        init_options: dict[str, Any] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.address = address
        self.batch_size = batch_size
        self.max_in_flight = max_in_flight
        self.init_options = dict(init_options or {})
        self._remote: Any = None  # _run_batch as a Ray remote function, made on connecting

    def connect(self) -> ModuleType:
        ray = _ray()
        if not ray.is_initialized():
            if self.address is not None:
                check_reachable(self.address)
            options = {
                "log_to_driver": False,
                **({"include_dashboard": False} if self.address is None else {}),
                **self.init_options,
            }
            try:
                ray.init(address=self.address, **options)
            except (ConnectionError, RuntimeError, ValueError) as error:
                where = self.address or "a local Ray"
                raise RayUnavailable(f"cannot start or reach {where} (TWINSIM_RAY_ADDRESS): {error}") from None
        _register_serializers(ray)  # per connection: a re-initialised Ray starts without them
        if self._remote is None:
            self._remote = ray.remote(_run_batch)
        return ray

    def _window(self, ray: ModuleType) -> int:
        if self.max_in_flight is not None:
            return max(1, self.max_in_flight)
        return max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))  # keep every CPU busy, memory bounded

    def map(self, work: Callable[[Unit], Result], units: Sequence[Unit]) -> Iterator[Result]:
        units = list(units)
        if not units:
            return
        ray = self.connect()
        shared = ray.put(work)  # the prepared experiment or evaluation and the brains, stored once for all tasks
        batches = [units[i : i + self.batch_size] for i in range(0, len(units), self.batch_size)]
        window = self._window(ray)
        pending: deque = deque()
        submitted = 0
        try:
            while submitted < len(batches) or pending:
                while submitted < len(batches) and len(pending) < window:
                    pending.append(self._remote.remote(shared, batches[submitted]))
                    submitted += 1
                yield from ray.get(pending.popleft())
        finally:
            for ref in pending:  # stopped or failed: don't leave tasks running for nobody
                ray.cancel(ref)
