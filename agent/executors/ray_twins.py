"""A live simulation on a Ray cluster: each twin's whole session is one Ray task, on a worker that keeps one
Chromium for the sessions it runs (agent/browser/kept_browser.py); the traces come back in the order of the
personas, as they finish.

Why it gives the in-process run's traces: a twin's session is a function of its persona, the config (seeds) and the
site, and a worker runs the very same session (agent/simulation/twin_session.py) with the same brains. The one thing
a worker lacks is the memory store (an embedded Chroma directory belongs to the process that opened it, and another
machine cannot read it at all): a worker's recalls travel to the driver through a small Ray actor (RecallBroker)
and the driver's store answers them, so a twin recalls exactly what it recalls in process.

A worker that dies (its process, or its whole node) takes only the sessions it was running; Ray runs those tasks
again elsewhere (max_retries), and the driver, which only takes a task's finished result, neither loses nor doubles
a twin. Tasks ask for one "chromium" resource when the cluster's nodes advertise it (workers with a browser; the
layout in docs/deploy.md), else for one CPU. Screenshots a worker takes for the report come back as bytes and are
written into the run's directory here.
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from agent.allowed_hosts import HostAllowList
from agent.executors.ray_units import RayExecutor
from agent.graph import TwinGraph
from agent.memory_recall import RecallRequest
from agent.simulation.config import SimulationConfig
from agent.simulation.trace import TwinTrace
from personas.memory_types import Memory
from personas.persona import Persona

POLL_S = 0.5  # the driver's wait for recall requests before it checks whether the run is over
TASK_RETRIES = 3  # a session whose worker died runs again this many times at most


class RecallBroker:
    """Holds workers' recall requests until the driver answers them (a Ray async actor on the cluster)."""

    def __init__(self) -> None:
        self._waiting: asyncio.Queue | None = None
        self._answers: dict[int, asyncio.Future] = {}
        self._next = 0

    def _queue(self) -> asyncio.Queue:
        if self._waiting is None:
            self._waiting = asyncio.Queue()
        return self._waiting

    async def recall(self, persona_id: str, query: str, k: int) -> list[Memory]:
        self._next += 1
        ticket, answer = self._next, asyncio.get_running_loop().create_future()
        self._answers[ticket] = answer
        await self._queue().put((ticket, persona_id, query, k))
        return await answer

    async def requests(self, wait_s: float) -> list[tuple]:
        queue = self._queue()
        try:
            first = await asyncio.wait_for(queue.get(), wait_s)
        except TimeoutError:
            return []
        taken = [first]
        while not queue.empty():
            taken.append(queue.get_nowait())
        return taken

    def answer(self, answers: list[tuple[int, list[Memory] | None, str | None]]) -> None:
        for ticket, memories, error in answers:
            future = self._answers.pop(ticket, None)
            if future is not None and not future.done():
                future.set_exception(RuntimeError(error)) if error else future.set_result(memories)


class BrokeredMemory:
    """A worker's memory source: every recall answered by the driver's store, through the broker."""

    def __init__(self, broker: Any) -> None:  # a Ray actor handle (the broker)
        self.broker = broker

    def recall(self, persona_id: str, query: str, k: int = 5) -> list[Memory]:
        import ray

        return ray.get(self.broker.recall.remote(persona_id, query, k))


def _answer_recalls(ray: ModuleType, broker: Any, graph: TwinGraph, done: threading.Event) -> None:
    """The driver's side of the broker: answer recalls until the run is over."""
    while not done.is_set():
        try:
            asked = ray.get(broker.requests.remote(POLL_S))
        except Exception:  # noqa: BLE001 - the cluster went away: the twins' tasks fail and say so
            return
        answers: list[tuple[Any, list[Memory] | None, str | None]] = []
        for ticket, persona_id, query, k in asked:
            try:
                answers.append((ticket, graph.recall(RecallRequest(persona_id, query, k)), None))
            except Exception as error:  # noqa: BLE001 - the worker's twin records it as its failure
                answers.append((ticket, None, f"recall failed on the driver: {error}"))
        if answers:
            broker.answer.remote(answers)


def browse_on_worker(
    brains: dict,
    broker: Any,
    persona: Persona,
    config: SimulationConfig,
    screenshots: bool,
    allowed: HostAllowList | None = None,
) -> tuple[TwinTrace, dict[str, bytes]]:
    """One twin's whole session on this worker, in a fresh context of the Chromium the worker process keeps
    (agent/browser/kept_browser.py); the trace (which node ran it) and the screenshots it took, as bytes by their
    path in the run's directory."""
    import ray

    from agent.browser.kept_browser import KEPT
    from agent.simulation.twin_session import run_twin, takes_pictures

    graph = TwinGraph(brains, memory=BrokeredMemory(broker))
    with tempfile.TemporaryDirectory() as scratch:
        out_dir = Path(scratch) if screenshots else None
        trace = KEPT.run(
            lambda browser: run_twin(browser, graph, persona, config, out_dir, allowed),
            pictures=takes_pictures(graph, config, out_dir),
            allowed=allowed,
        )
        pictures = (
            {path.relative_to(scratch).as_posix(): path.read_bytes() for path in Path(scratch).rglob("*.png")}
            if screenshots
            else {}
        )
    trace.node = ray.get_runtime_context().get_node_id()
    return trace, pictures


def _head_node(ray: ModuleType) -> str:
    """The head node's id (the driver may be attached to any node of its machine, a worker's too)."""
    for node in ray.nodes():
        if node.get("Alive") and "node:__internal_head__" in node.get("Resources", {}):
            return node["NodeID"]
    return ray.get_runtime_context().get_node_id()


def session_resources(ray: ModuleType) -> dict[str, Any]:
    """What one browsing session asks of a node: a "chromium" slot where the nodes advertise them (workers with a
    browser: docs/deploy.md), else a CPU."""
    return {"resources": {"chromium": 1}} if ray.cluster_resources().get("chromium") else {"num_cpus": 1}


def sessions_in_flight(ray: ModuleType) -> int:
    """Sessions submitted at once: twice the browser slots (or CPUs), so every slot stays busy, memory bounded."""
    return max(2, int(ray.cluster_resources().get("chromium") or ray.cluster_resources().get("CPU", 1)) * 2)


@contextmanager
def recall_broker(ray: ModuleType, graph: TwinGraph) -> Iterator[Any]:
    """A RecallBroker on the head and the driver's thread that answers it from `graph`'s store, for the length of
    a run; the broker's handle is what the sessions' BrokeredMemory asks."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    broker = (
        ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=-1)(RecallBroker)
        .options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(_head_node(ray), soft=True),
        )
        .remote()
    )  # on the head; restarted elsewhere if its node dies, and the recalls asked of it asked again
    done = threading.Event()
    answering = threading.Thread(target=_answer_recalls, args=(ray, broker, graph, done), daemon=True)
    answering.start()
    try:
        yield broker
    finally:
        done.set()
        answering.join(timeout=POLL_S * 4)
        ray.kill(broker)


def run_twins_on_ray(
    executor: RayExecutor,
    config: SimulationConfig,
    personas: list[Persona],
    graph: TwinGraph,
    out_dir: Path | None = None,
    on_trace: Callable[[TwinTrace], None] | None = None,
    allowed: HostAllowList | None = None,
) -> list[TwinTrace]:
    """Every persona's session as a Ray task; traces in the order of `personas` (on_trace too, as they arrive)."""
    ray = executor.connect()
    screenshots = config.screenshots and out_dir is not None
    remote = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False, **session_resources(ray))(browse_on_worker)
    window = sessions_in_flight(ray)
    pending: deque = deque()
    traces: list[TwinTrace] = []
    submitted = 0
    with recall_broker(ray, graph) as broker:
        brains = ray.put(graph.brains_for(config.brain))
        try:
            while submitted < len(personas) or pending:
                while submitted < len(personas) and len(pending) < window:
                    pending.append(remote.remote(brains, broker, personas[submitted], config, screenshots, allowed))
                    submitted += 1
                trace, pictures = ray.get(pending.popleft())
                for relative, data in pictures.items():
                    (out_dir / relative).parent.mkdir(parents=True, exist_ok=True)
                    (out_dir / relative).write_bytes(data)
                traces.append(trace)
                if on_trace is not None:
                    on_trace(trace)
        finally:
            for ref in pending:  # stopped or failed: leave no session running for nobody
                ray.cancel(ref)
    return traces


class RayTwins:
    """A simulation's twins as Ray tasks: run_simulation's `executor` (agent/simulation/run.py), which calls
    `run_twins` instead of running the sessions in its own process."""

    def __init__(self, executor: RayExecutor) -> None:
        self.executor = executor

    def run_twins(
        self,
        config: SimulationConfig,
        personas: list[Persona],
        graph: TwinGraph,
        out_dir: Path | None,
        on_trace: Callable[[TwinTrace], None] | None,
        allowed: HostAllowList | None,
    ) -> list[TwinTrace]:
        return run_twins_on_ray(self.executor, config, personas, graph, out_dir, on_trace, allowed)
