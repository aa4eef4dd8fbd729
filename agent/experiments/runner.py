"""Running an experiment: every persona x instance x variant, as seeded sampling twins, resumable.

The units are prepared once (agent/experiments/prepared.py) and each runs through one loop
(agent/experiments/unit_loop.py): with the embedded brain called directly in bulk, or through `TwinGraph.predict`
with bounded concurrency for any other brain, or on a live variant in headless Chromium. Which way a unit runs is
decided here, once, from the spec's brain. An executor (agent/executors/) runs the bulk units: in this process,
or as Ray tasks. Finished samples are handed out in batches, so a run can be stopped and
resumed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from agent.brains.names import BrainName
from agent.executors.ray_units import RayExecutor
from agent.executors.units import InProcessExecutor, UnitExecutor
from agent.experiments.context import PersonaSource
from agent.experiments.live import (
    LIVE_CONCURRENCY,
    chromium,
)
from agent.experiments.live_on_ray import live_units_on_ray
from agent.experiments.prepared import PreparedExperiment, WorkUnit, sample_key
from agent.experiments.samples import Sample
from agent.experiments.unit_loop import (
    SyncBrain,
    run_unit,
    run_unit_graph,
    run_unit_live,
)
from agent.graph import TwinGraph
from agent.usage import Usage
from personas.persona import Persona

FLUSH_EVERY = 200  # samples handed to on_samples (e.g. the store) at a time


class RunInterrupted(Exception):
    """The run was asked to stop; the samples handed out so far are complete and a resume skips them."""


class BudgetExceeded(Exception):
    """The LLM spend (estimated before the run, or actual during it) is over the spec's budget."""


# ---- the run -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    resumed: int


@dataclass
class RunOutcome:
    samples: list[Sample]  # every sample of the experiment, resumed ones included, in a canonical order
    usage: Usage
    resumed: int
    wall_s: float
    live_sights: dict = field(default_factory=dict)  # live units run now: what each twin was shown (visibility.py)


def canonical_order(samples: Iterable[Sample], variants: Sequence[str]) -> list[Sample]:
    rank = {v: i for i, v in enumerate(variants)}
    return sorted(samples, key=lambda s: (rank.get(s.variant, len(rank)), s.persona_id, s.instance))


class _Sink:
    """Hands finished samples out in batches and reports progress; raises RunInterrupted when asked to stop."""

    def __init__(
        self,
        total: int,
        resumed: int,
        on_samples: Callable[[list[Sample]], None] | None,
        on_progress: Callable[[Progress], None] | None,
        stop: threading.Event | None,
        flush_every: int = FLUSH_EVERY,
    ) -> None:
        self.total, self.resumed, self.done = total, resumed, resumed
        self.on_samples, self.on_progress, self.stop = on_samples, on_progress, stop
        self.flush_every = flush_every
        self.batch: list[Sample] = []
        self.samples: list[Sample] = []

    def add(self, sample: Sample) -> None:
        self.samples.append(sample)
        self.batch.append(sample)
        self.done += 1
        if len(self.batch) >= self.flush_every:
            self.flush()

    def hand_out(self) -> None:
        if self.batch and self.on_samples:
            self.on_samples(self.batch)
            # the handler kept the decisions (the export): the run keeps the samples without them, so a long
            # run does not hold every decision and page reference until its end
            start = len(self.samples) - len(self.batch)
            self.samples[start:] = [s.model_copy(update={"decisions": []}) for s in self.batch]
        self.batch = []

    def flush(self) -> None:
        self.hand_out()
        if self.on_progress:
            self.on_progress(Progress(self.done, self.total, self.resumed))
        if self.stop is not None and self.stop.is_set():
            raise RunInterrupted(f"stopped after {self.done} of {self.total} samples")


def run_experiment(
    prepared: PreparedExperiment,
    *,
    embedded: SyncBrain | None = None,
    graph: TwinGraph | None = None,
    done: Iterable[Sample] = (),
    on_samples: Callable[[list[Sample]], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    executor: UnitExecutor | None = None,
    stop: threading.Event | None = None,
) -> RunOutcome:
    """Run every unit not already in `done`; returns all samples. Raises RunInterrupted or BudgetExceeded
    (after handing out the samples finished so far, so the run can be resumed). `on_samples` gets each sample
    with its step decisions (Sample.decisions, for the decision export); the returned samples keep them only
    when there is no `on_samples` to hand them to."""
    spec = prepared.spec
    started = time.perf_counter()
    units = prepared.units()
    wanted = {u.key for u in units}
    finished = {sample_key(s): s for s in done if sample_key(s) in wanted}
    todo = [u for u in units if u.key not in finished]
    live = [u for u in todo if u.variant in spec.live_variants]
    todo = [u for u in todo if u.variant not in spec.live_variants]
    if live and graph is None:
        raise ValueError("live variants need the twin graph (twins browse through it)")
    sink = _Sink(len(units), len(finished), on_samples, on_progress, stop)
    usage = Usage()
    if live and not todo:
        pass  # only live units left
    elif spec.brain == BrainName.EMBEDDED:
        brain = embedded if embedded is not None else _embedded_of(graph)
        executor = executor or InProcessExecutor()
        try:
            for sample in executor.map(lambda unit: run_unit(prepared, brain, unit), todo):
                sink.add(sample)
        finally:
            sink.hand_out()  # whatever finished is kept, even if a unit failed
        sink.flush()
    else:
        if graph is None:
            raise ValueError(f"brain '{spec.brain}' needs the twin graph")
        sink.flush_every = max(1, min(FLUSH_EVERY, spec.concurrency * 2))
        usage = asyncio.run(_run_through_graph(prepared, graph, todo, sink, stop))
    sights: dict = {}
    if live:
        if graph is None:
            raise ValueError("live variants browse through the twin graph: pass it")
        sink.flush_every = LIVE_CONCURRENCY
        usage = asyncio.run(_run_live(prepared, graph, live, sink, stop, spent=usage, sights=sights, executor=executor))
    samples = canonical_order([*finished.values(), *sink.samples], spec.variant_names)
    return RunOutcome(
        samples=samples, usage=usage, resumed=len(finished), wall_s=time.perf_counter() - started, live_sights=sights
    )


def _embedded_of(graph: TwinGraph | None) -> SyncBrain:
    if graph is None:
        raise ValueError("the embedded brain runs in bulk: pass it, or the twin graph that holds it")
    return cast(SyncBrain, graph.brain(BrainName.EMBEDDED))  # the embedded brain also decides synchronously


async def _run_live(
    prepared: PreparedExperiment,
    graph: TwinGraph,
    todo: list[WorkUnit],
    sink: _Sink,
    stop: threading.Event | None,
    spent: Usage,
    sights: dict,
    executor: UnitExecutor | None = None,
) -> Usage:
    """Live units share one headless Chromium, a few twins (browser contexts) at a time; with a Ray executor,
    each is a Ray task with a Chromium of its own (agent/experiments/live_on_ray.py)."""
    if isinstance(executor, RayExecutor):
        async with live_units_on_ray(executor, prepared, graph) as on_ray:
            return await _run_through_graph(
                prepared,
                graph,
                todo,
                sink,
                stop,
                spent=spent,
                work=lambda unit: on_ray.run(unit, sights),
                concurrency=on_ray.in_flight,
            )
    async with chromium() as browser:
        return await _run_through_graph(
            prepared,
            graph,
            todo,
            sink,
            stop,
            spent=spent,
            work=lambda unit: run_unit_live(prepared, graph, browser, unit, sights),
            concurrency=min(prepared.spec.concurrency, LIVE_CONCURRENCY),
        )


async def _run_through_graph(
    prepared: PreparedExperiment,
    graph: TwinGraph,
    todo: list[WorkUnit],
    sink: _Sink,
    stop: threading.Event | None,
    *,
    spent: Usage | None = None,
    work: Callable[[WorkUnit], Awaitable[tuple[Sample, Usage]]] | None = None,
    concurrency: int | None = None,
) -> Usage:
    spec = prepared.spec
    semaphore = asyncio.Semaphore(concurrency or spec.concurrency)
    spent = spent or Usage()
    work = work or (lambda unit: run_unit_graph(prepared, graph, unit))
    halt: list[BaseException] = []

    async def one(unit: WorkUnit) -> None:
        nonlocal spent
        async with semaphore:
            if halt or (stop is not None and stop.is_set()):
                return
            sample, usage = await work(unit)
            assert spent is not None  # set above
            spent = spent.add(usage)
            if spec.budget_usd is not None and spent.cost_usd > spec.budget_usd and not halt:
                halt.append(
                    BudgetExceeded(
                        f"spent ${spent.cost_usd:.4f}, over the budget of ${spec.budget_usd:g}, "
                        f"after {sink.done + 1} of {sink.total} samples"
                    )
                )
            try:
                sink.add(sample)
            except RunInterrupted as error:
                halt.append(error)

    try:
        await asyncio.gather(*(one(u) for u in todo))
    finally:
        sink.hand_out()
    if halt:
        raise halt[0]
    sink.flush()
    return spent


def personas_from(store: PersonaSource, ids: Iterable[str] | None = None) -> list[Persona]:
    """All stored personas (or those ids that exist): the pool a population is drawn from."""
    wanted = list(ids) if ids is not None else store.persona_ids()
    pool = []
    for pid in wanted:
        try:
            pool.append(store.get_persona(pid))
        except (KeyError, ValueError):
            continue  # unknown ids are reported by select_population
    return pool
