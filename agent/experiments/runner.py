"""Running an experiment: every persona x instance x variant, as seeded sampling twins, resumable.

The unit of work is a pure function of (spec, persona, instance, variant): the instance's seed comes from
(spec seed, persona id, instance) only, so the same twin instance draws with the same seed on every variant
(the comparison is paired) and a re-run or a resumed run gives the same samples. For a page sequence the twin
acts on page 1, then on page 2 with that step in its history, and so on, until it buys or leaves. On a live
variant (`live_url`) the twin browses the site in headless Chromium instead (agent.experiments.live), with
the same instance seed.

Two paths, one result: the embedded brain is called directly in bulk (pages parsed once, memories recalled once
per persona and page), since invoking the full graph costs ~10x more a unit (benchmarks/experiment_speed.py);
it still goes through the graph's own act and ground steps (`agent.grounding`), with the graph's one retry. Any
other brain goes through `TwinGraph.predict` (grounding, retries, fallback) with bounded concurrency. Which path
a unit takes is decided here, once, from the spec's brain. An `Executor` runs the units; the in-process one is
here, a distributed one only needs `map`.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from agent.allowed_hosts import HostAllowList
from agent.brains.names import BrainName
from agent.decision import MemorySource, TwinContext, Usage
from agent.experiments.live import LIVE_CONCURRENCY, browse, check_live_variants, chromium, trace_to_sample
from agent.experiments.pages import ResolvedPage, resolve_variants
from agent.experiments.samples import Sample, to_sample
from agent.experiments.spec import ExperimentSpec, SpecError
from agent.experiments.targets import check_targets
from agent.exports.decision_record import DecisionRecord, MemoryRef, evidence_of
from agent.grounding import click_type_of, grounding_error, normalise, rejection
from agent.history import Step
from agent.options import PredictOptions
from agent.page.read_page import DEFAULT_MAX_PAGE_BYTES
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits
from agent.recall_query import recall_query
from agent.tasks import judge
from personas.memory_types import Memory
from personas.persona import Persona
from personas.population import segment_buckets, select_population

MEMORIES_K = 5
UNGROUNDED = "the proposal names nothing this page allows, even after one retry; the first proposal stands"
FLUSH_EVERY = 200  # samples handed to on_samples (e.g. the store) at a time


class RunInterrupted(Exception):
    """The run was asked to stop; the samples handed out so far are complete and a resume skips them."""


class BudgetExceeded(Exception):
    """The LLM spend (estimated before the run, or actual during it) is over the spec's budget."""


class SyncBrain(Protocol):
    def decide_sync(self, ctx: TwinContext): ...


@dataclass(frozen=True)
class WorkUnit:
    persona_id: str
    instance: int
    variant: str

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.variant, self.persona_id, self.instance)


def sample_key(sample: Sample) -> tuple[str, str, int]:
    return (sample.variant, sample.persona_id, sample.instance)


def _hash_int(*parts: object) -> int:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits: fits SQLite, JSON and numpy


def instance_seed(spec_seed: int, persona_id: str, instance: int) -> int:
    """The seed of one twin instance: the same on every variant, so the variants are compared on paired draws."""
    return _hash_int("instance", spec_seed, persona_id, instance)


def page_seed(seed: int, page_number: int) -> int:
    """The seed of one page of a variant's page sequence (the first page draws with the instance seed)."""
    return seed if page_number == 0 else _hash_int("step", seed, page_number)


@dataclass
class PreparedExperiment:
    """Everything the units share, computed once: the population, parsed pages, recalled memories, segments."""

    spec: ExperimentSpec
    personas: dict[str, Persona]
    pages: dict[str, list[ResolvedPage]]
    memories: dict[tuple[str, str], list[Memory]] = field(default_factory=dict)
    segments: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what could not be checked before the run (targets on live pages)
    allowed_hosts: HostAllowList | None = None  # live variants' browsers request only these

    def units(self) -> list[WorkUnit]:
        """In a fixed order: persona, instance, then variant (a twin instance's variants run side by side)."""
        return [
            WorkUnit(pid, i, v)
            for pid in sorted(self.personas)
            for i in range(self.spec.samples_per_persona)
            for v in self.spec.variant_names
        ]

    @property
    def predictions_needed(self) -> int:
        return self.spec.predictions_needed(len(self.personas))


def prepare(
    spec: ExperimentSpec,
    pool: Sequence[Persona],
    memory: MemorySource | None,
    *,
    base_dir: Path | None = None,
    allow_paths: bool = True,
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    pages: dict[str, list[ResolvedPage]] | None = None,
    page_limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
    allowed_hosts: HostAllowList | None = None,
) -> PreparedExperiment:
    """Validate everything that can fail before any twin runs; raises PopulationError or SpecError with the reason.
    With `allowed_hosts`, pages are fetched and live variants browsed only on those hosts."""
    if pages is None:
        pages = resolve_variants(
            spec,
            base_dir=base_dir,
            allow_paths=allow_paths,
            max_bytes=max_page_bytes,
            limits=page_limits,
            allowed=allowed_hosts,
        )
    notes = check_targets(
        spec,
        {
            name: {n for page in variant_pages for n in page.observation.by_name}
            for name, variant_pages in pages.items()
        },
    )
    check_live_variants(spec, allowed_hosts)
    personas = select_population(pool, spec.population)
    needed = spec.predictions_needed(len(personas))
    if needed > spec.max_predictions:
        raise SpecError(
            f"the spec needs up to {needed} predictions ({len(personas)} personas x {spec.samples_per_persona} "
            f"samples x pages); max_predictions is {spec.max_predictions}"
        )
    prepared = PreparedExperiment(
        spec=spec,
        personas={p.id: p for p in personas},
        pages=pages,
        segments={p.id: segment_buckets(p, spec.segments) for p in personas},
        notes=notes,
        allowed_hosts=allowed_hosts,
    )
    if memory is not None:
        unique = {page.key: page for variant_pages in pages.values() for page in variant_pages}
        for persona in personas:
            for key, page in unique.items():
                query = recall_query(page.observation, spec.history, spec.task)
                prepared.memories[(persona.id, key)] = memory.recall(persona.id, query, MEMORIES_K)
    return prepared


# ---- one unit of work --------------------------------------------------------------------------------------


def _to_sample(
    prepared: PreparedExperiment,
    unit: WorkUnit,
    steps: list[Step],
    fallbacks: int = 0,
    reached: int | None = None,
    decisions: list[DecisionRecord] | None = None,
) -> Sample:
    """`reached`: the number of actions after which a page met the task (None: never, or no judged task)."""
    judged = prepared.spec.task is not None and prepared.spec.task.success is not None
    return to_sample(
        steps,
        variant=unit.variant,
        persona_id=unit.persona_id,
        instance=unit.instance,
        targets=prepared.spec.targets,
        segments=prepared.segments.get(unit.persona_id, {}),
        purchase=any(s.action.type == "click" and s.click_type == "purchase" for s in steps),
        leave=any(s.action.type == "terminate" for s in steps),
        fallbacks=fallbacks,
        task_reached=(reached is not None) if judged else None,
        task_step=reached,
        decisions=decisions,
    )


def _record(
    step: Step,
    number: int,
    page: ResolvedPage,
    persona: Persona,
    history: list[Step],
    details: dict,
    memories: list[Memory],
    *,
    brain: str,
    model: str | None,
    fallback_reason: str | None,
    seed: int | None,
) -> DecisionRecord:
    """The decision export's record of one step (the page itself is stored once per run, from the spec's pages)."""
    return DecisionRecord(
        step=number,
        url=page.url,
        page_sha256=page.sha256,
        page_type=page.observation.page_type,
        page_title=page.observation.title,
        action=step.action,
        click_type=step.click_type,
        rationale=step.rationale or "",
        memories=[MemoryRef.of(m) for m in memories],
        evidence=evidence_of(details, persona, history, page.observation.title),
        brain=brain,
        model=model,
        fallback_used=fallback_reason is not None,
        fallback_reason=fallback_reason,
        seed=seed,
    )


def _reaches_task(spec: ExperimentSpec, page: ResolvedPage, number: int) -> bool:
    """The twin is on page `number` of the sequence after `number` actions: does it meet the task? The first page
    is where the twin begins, not something it reached (as in live runs, agent/browsing/twin_session.py)."""
    if number == 0 or spec.task is None or spec.task.success is None:
        return False
    page_text = page.text if spec.task.success.text is not None else None
    return bool(judge(spec.task, page.observation, page.url, page_text).reached)


def _ends_visit(step: Step) -> bool:
    return step.action.type == "terminate" or (step.action.type == "click" and step.click_type == "purchase")


def _decide_grounded(brain: SyncBrain, ctx: TwinContext):
    """The graph's reason -> act -> ground for a synchronous brain: a proposal this page does not allow goes
    back once with the reason; if the retry fails too, the first answer stands, as the graph's embedded
    fallback (the same brain, without feedback) would give. Returns (decision, action, fell_back)."""
    decision = brain.decide_sync(ctx)
    action = normalise(decision.action, ctx.observation)
    error = grounding_error(action, ctx.observation)
    if error is None:
        return decision, action, False
    retry = brain.decide_sync(replace(ctx, feedback=rejection(action, error)))
    retried = normalise(retry.action, ctx.observation)
    if grounding_error(retried, ctx.observation) is None:
        return retry, retried, False
    return decision, decision.action, True


def run_unit(prepared: PreparedExperiment, brain: SyncBrain, unit: WorkUnit) -> Sample:
    """One twin instance through one variant with a brain that decides synchronously (the embedded one)."""
    persona = prepared.personas[unit.persona_id]
    seed = instance_seed(prepared.spec.seed, unit.persona_id, unit.instance)
    history = list(prepared.spec.history)
    steps: list[Step] = []
    records: list[DecisionRecord] = []
    fallbacks = 0
    reached = None
    for number, page in enumerate(prepared.pages[unit.variant]):
        if _reaches_task(prepared.spec, page, number):
            reached = number
            break
        ctx = TwinContext(
            persona=persona,
            memories=prepared.memories.get((unit.persona_id, page.key), []),
            observation=page.observation,
            history=history + steps,
            mode="sample",
            seed=page_seed(seed, number),
            task=prepared.spec.task,
        )
        decision, action, fell_back = _decide_grounded(brain, ctx)
        fallbacks += fell_back
        step = Step(
            action=action,
            rationale=decision.rationale,
            url=page.url,
            click_type=click_type_of(action, page.observation, decision.details),
        )
        records.append(
            _record(
                step,
                len(steps) + 1,
                page,
                persona,
                ctx.history,
                decision.details,
                ctx.memories,
                brain=BrainName.EMBEDDED.value,
                model=decision.model,
                seed=ctx.seed,
                fallback_reason=UNGROUNDED if fell_back else None,
            )
        )
        steps.append(step)
        if _ends_visit(step):
            break
    return _to_sample(prepared, unit, steps, fallbacks, reached, records)


async def run_unit_graph(prepared: PreparedExperiment, graph, unit: WorkUnit) -> tuple[Sample, Usage]:
    """The same unit through the full graph (LLM brains, baselines): grounding, retry, embedded fallback."""
    spec = prepared.spec
    persona = prepared.personas[unit.persona_id]
    seed = instance_seed(spec.seed, unit.persona_id, unit.instance)
    steps: list[Step] = []
    records: list[DecisionRecord] = []
    usage, fallbacks, reached = Usage(), 0, None
    for number, page in enumerate(prepared.pages[unit.variant]):
        if _reaches_task(spec, page, number):
            reached = number
            break
        history = list(spec.history) + steps
        prediction = await graph.predict(
            persona=persona,
            observation=page.observation,
            history=history,
            brain=spec.brain,
            model=spec.model,
            options=PredictOptions(mode="sample", seed=page_seed(seed, number), memories_k=MEMORIES_K),
            task=spec.task,
        )
        usage = usage.add(prediction.usage)
        fallbacks += prediction.fallback_used
        step = Step(
            action=prediction.action, rationale=prediction.rationale, click_type=prediction.click_type, url=page.url
        )
        records.append(
            _record(
                step,
                len(steps) + 1,
                page,
                persona,
                history,
                prediction.details,
                prediction.memories,
                brain=prediction.brain,
                model=prediction.model,
                seed=page_seed(seed, number),
                fallback_reason=prediction.fallback_reason if prediction.fallback_used else None,
            )
        )
        steps.append(step)
        if _ends_visit(step):
            break
    return _to_sample(prepared, unit, steps, fallbacks, reached, records), usage


async def run_unit_live(
    prepared: PreparedExperiment, graph, browser, unit: WorkUnit, sights: dict | None = None
) -> tuple[Sample, Usage]:
    """The unit on a live variant: the twin browses live_url through the graph, seeded by its instance seed.
    `sights` collects what it was shown, by (variant, persona, instance)."""
    spec = prepared.spec
    variant = spec.live_variants[unit.variant]
    seed = instance_seed(spec.seed, unit.persona_id, unit.instance)
    trace, usage, shown = await browse(
        browser, graph, prepared.personas[unit.persona_id], variant, spec, seed, prepared.allowed_hosts
    )
    if sights is not None:
        sights[(unit.variant, unit.persona_id, unit.instance)] = shown
    return trace_to_sample(
        trace,
        variant=unit.variant,
        instance=unit.instance,
        targets=spec.targets,
        segments=prepared.segments.get(unit.persona_id, {}),
    ), usage


# ---- executors ---------------------------------------------------------------------------------------------


class Executor(Protocol):
    """Runs units of work; results may come back in any order."""

    def map(self, work: Callable[[WorkUnit], Sample], units: Sequence[WorkUnit]) -> Iterator[Sample]: ...


class InProcessExecutor:
    def map(self, work: Callable[[WorkUnit], Sample], units: Sequence[WorkUnit]) -> Iterator[Sample]:
        for unit in units:
            yield work(unit)


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
    live_sights: dict = field(default_factory=dict)  # live units run now: what each twin was shown (live_sights.py)


def canonical_order(samples: Iterable[Sample], variants: Sequence[str]) -> list[Sample]:
    rank = {v: i for i, v in enumerate(variants)}
    return sorted(samples, key=lambda s: (rank.get(s.variant, len(rank)), s.persona_id, s.instance))


class _Sink:
    """Hands finished samples out in batches and reports progress; raises RunInterrupted when asked to stop."""

    def __init__(
        self,
        total: int,
        resumed: int,
        on_samples,
        on_progress,
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
    graph=None,
    done: Iterable[Sample] = (),
    on_samples: Callable[[list[Sample]], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    executor: Executor | None = None,
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
        sink.flush_every = LIVE_CONCURRENCY
        usage = asyncio.run(_run_live(prepared, graph, live, sink, stop, spent=usage, sights=sights))
    samples = canonical_order([*finished.values(), *sink.samples], spec.variant_names)
    return RunOutcome(
        samples=samples, usage=usage, resumed=len(finished), wall_s=time.perf_counter() - started, live_sights=sights
    )


def _embedded_of(graph) -> SyncBrain:
    if graph is None:
        raise ValueError("the embedded brain runs in bulk: pass it, or the twin graph that holds it")
    return graph.brain(BrainName.EMBEDDED)


async def _run_live(
    prepared: PreparedExperiment,
    graph,
    todo: list[WorkUnit],
    sink: _Sink,
    stop: threading.Event | None,
    spent: Usage,
    sights: dict,
) -> Usage:
    """Live units share one headless Chromium, a few twins (browser contexts) at a time."""
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
    graph,
    todo: list[WorkUnit],
    sink: _Sink,
    stop: threading.Event | None,
    *,
    spent: Usage | None = None,
    work=None,
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


def personas_from(store, ids: Iterable[str] | None = None) -> list[Persona]:
    """All stored personas (or those ids that exist): the pool a population is drawn from."""
    wanted = list(ids) if ids is not None else store.persona_ids()
    pool = []
    for pid in wanted:
        try:
            pool.append(store.get_persona(pid))
        except (KeyError, ValueError):
            continue  # unknown ids are reported by select_population
    return pool
