"""One unit of work, one loop: a twin instance through a variant's pages, step by step, until it buys or leaves.

Why one loop for two ways of running: `unit_turns` holds the loop (history, task checks, records, the end of
the visit) and yields each page's prediction to make; `run_unit` answers with the embedded brain called
directly (bulk: pages read and memories recalled once in `prepare`, no LangGraph, which costs ~10x more a unit,
benchmarks/experiment_speed.py), `run_unit_graph` with `TwinGraph.predict` (LLM brains, baselines). Both decide
through the same decide-and-ground step (agent.decide_step, its retry and fallback) and derive the brain's
context from the same input, so the two give the same samples for the same brain. For a page sequence the twin
acts on page 1, then on page 2 with that step in its history, and so on. On a live variant (`live_url`) the twin
browses the site in headless Chromium instead (agent.experiments.live), with the same instance seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent.brain_answer import Decision
from agent.brains.base import Brain
from agent.decide_step import decide_and_ground
from agent.experiments.live import browse, trace_to_sample
from agent.experiments.pages import ResolvedPage
from agent.experiments.prepared import PreparedExperiment, WorkUnit, instance_seed, page_seed, unit_options
from agent.experiments.samples import Sample, to_sample
from agent.experiments.spec import ExperimentSpec
from agent.exports.decision_record import DecisionRecord, MemoryRef, evidence_of
from agent.history import Step
from agent.predict_use_case import predict_resolved
from agent.prediction import Prediction, prediction_of
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.step_driving import run_async, run_sync
from agent.tasks import judge
from agent.twin_context import TwinContext
from agent.usage import Usage
from personas.memory_types import Memory
from personas.persona import Persona

if TYPE_CHECKING:
    from playwright.async_api import Browser

if TYPE_CHECKING:
    from agent.graph import TwinGraph


class SyncBrain(Brain, Protocol):
    """A brain that can also answer without an event loop (the embedded one), for bulk runs."""

    def decide_sync(self, ctx: TwinContext) -> Decision: ...


@dataclass(frozen=True)
class Turn:
    """One page of a unit: the prediction to make there, and the page it is made on."""

    given: PredictionInput
    resolved: ResolvedInput
    page: ResolvedPage


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
    is where the twin begins, not something it reached (as in live runs, agent/simulation/twin_session.py)."""
    if number == 0 or spec.task is None or spec.task.success is None:
        return False
    page_text = page.text if spec.task.success.text is not None else None
    return bool(judge(spec.task, page.observation, page.url, page_text).reached)


def _ends_visit(step: Step) -> bool:
    return step.action.type == "terminate" or (step.action.type == "click" and step.click_type == "purchase")


def unit_turns(prepared: PreparedExperiment, unit: WorkUnit) -> Generator[Turn, Prediction, tuple[Sample, Usage]]:
    """Yields each page's Turn, is sent its Prediction; returns the unit's sample and what it cost."""
    spec = prepared.spec
    persona = prepared.personas[unit.persona_id]
    seed = instance_seed(spec.seed, unit.persona_id, unit.instance)
    brain = getattr(spec.brain, "value", spec.brain)
    steps: list[Step] = []
    records: list[DecisionRecord] = []
    usage, fallbacks, reached = Usage(), 0, None
    for number, page in enumerate(prepared.pages[unit.variant]):
        if _reaches_task(spec, page, number):
            reached = number
            break
        history = list(spec.history) + steps
        # built without re-validation: one per decision in bulk, from the checked spec and persona
        given = PredictionInput.model_construct(
            persona_id=persona.id,
            history=history,
            brain=brain,
            model=spec.model,
            options=unit_options(page_seed(seed, number)),
            task=spec.task,
        )
        prediction = yield Turn(given, ResolvedInput(persona=persona, observation=page.observation), page)
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
                seed=given.options.seed,
                fallback_reason=prediction.fallback_reason,
            )
        )
        steps.append(step)
        if _ends_visit(step):
            break
    return _to_sample(prepared, unit, steps, fallbacks, reached, records), usage


def bulk_prediction(prepared: PreparedExperiment, brain: SyncBrain) -> Callable[[Turn], Prediction]:
    """A turn answered by a synchronous brain (the embedded one, which is also its own fallback), with the
    memories `prepare` recalled for this persona and page."""

    def predict(turn: Turn) -> Prediction:
        started = time.perf_counter()
        key = (turn.given.persona_id or "", turn.page.key)
        memories = prepared.memories.get(key, [])
        ctx = TwinContext.of(turn.given, turn.resolved, memories)
        grounded = run_sync(
            decide_and_ground(brain, ctx, turn.given.options.max_retries), lambda ask: brain.decide_sync(ask.ctx)
        )
        return prediction_of(
            turn.given,
            turn.resolved,
            grounded,
            memories,
            key in prepared.memories and not memories,
            round((time.perf_counter() - started) * 1000, 2),
        )

    return predict


def run_unit(prepared: PreparedExperiment, brain: SyncBrain, unit: WorkUnit) -> Sample:
    """One twin instance through one variant with a brain that decides synchronously (the embedded one)."""
    sample, _ = run_sync(unit_turns(prepared, unit), bulk_prediction(prepared, brain))
    return sample


async def run_unit_graph(prepared: PreparedExperiment, graph: TwinGraph, unit: WorkUnit) -> tuple[Sample, Usage]:
    """The same unit through the full graph (LLM brains, baselines): its recall, decide step and fallback."""

    async def predict(turn: Turn) -> Prediction:
        return await predict_resolved(turn.given, turn.resolved, graph)

    return await run_async(unit_turns(prepared, unit), predict)


async def run_unit_live(
    prepared: PreparedExperiment, graph: TwinGraph, browser: Browser, unit: WorkUnit, sights: dict | None = None
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
