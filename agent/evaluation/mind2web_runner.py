"""Scoring a twin on Multimodal-Mind2Web, step by step, with the task and the previous steps it was given.

For each row the twin (no persona: the benchmark's workers are anonymous) gets the task (`confirmed_task`), the
previous steps (`action_reprs` before `target_action_index`, turned into its own history) and the page (the row's
`cleaned_html`, whose candidates are the row's positive and negative ones, agent/page/node_pages.py). Its action is
read as Mind2Web's operation: a click is CLICK, typing into a text field TYPE <text>, choosing a drop-down's option
SELECT <option>, leaving no operation at all. Rows are independent (the history is the recorded one, not the
twin's), so they stream: a few are predicted at a time and only their scores are kept.

Zheng et al. 2024, arXiv 2401.01614 (Multimodal-Mind2Web, SeeAct); Deng et al. 2023, NeurIPS (Mind2Web).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from agent.actions import Action, ClickAction, InputAction
from agent.evaluation.mind2web_metrics import (
    StepScore,
    operation_string,
    score_step,
    split_metrics,
)
from agent.evaluation.mind2web_published import CITATION, MIND2WEB_PUBLISHED
from agent.evaluation.mind2web_rows import Mind2WebStep
from agent.graph import TwinGraph
from agent.history import Step
from agent.page.node_pages import parse_node_page
from agent.page.observation import Observation
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits, PageTooComplex
from agent.page.simplifier.slug import slugify
from agent.predict_options import PredictOptions
from agent.predict_use_case import predict_resolved
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.screenshots import ScreenshotRefused, read_screenshot
from agent.tasks import Task
from agent.usage import Usage

_REPR = re.compile(
    r"^\s*\[(?P<tag>[^\]]*)\]\s*(?P<text>.*?)\s*->\s*(?P<op>[A-Za-z]+)(?::\s*(?P<value>.*?))?\s*$", re.DOTALL
)


def history_from_reprs(reprs: Iterable[str]) -> list[Step]:
    """Mind2Web's steps in words ("[textbox]  From -> TYPE: Mumbai") as the twin's own history."""
    steps: list[Step] = []
    for text in reprs:
        match = _REPR.match(text)
        if match is None:
            steps.append(Step(action=ClickAction(name=slugify(text, 40) or "element")))
            continue
        name = slugify(match["text"], 40) or slugify(match["tag"]) or "element"
        if match["op"].upper() in ("TYPE", "SELECT"):
            steps.append(Step(action=InputAction(name=name, text=(match["value"] or "")[:10_000])))
        else:
            steps.append(Step(action=ClickAction(name=name)))
    return steps


def as_operation(action: Action, observation: Observation) -> tuple[str | None, str, str]:
    """(the element's backend_node_id, op, value) of a twin's action on a Mind2Web page."""
    if action.type == "terminate":
        return None, "", ""
    candidate = observation.by_name.get(action.name)
    node_id = candidate.node_id if candidate is not None else None
    if action.type == "click":
        return node_id, "CLICK", ""
    op = "SELECT" if candidate is not None and candidate.tag == "select" else "TYPE"
    return node_id, op, action.text


@dataclass
class Mind2WebOutcome:
    score: StepScore
    record: dict  # one line of the step log
    latency_ms: float
    usage: Usage
    fallback: bool
    refused: bool


async def evaluate_step(
    graph: TwinGraph,
    step: Mind2WebStep,
    *,
    brain: str,
    model: str | None,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
    options: PredictOptions | None = None,
) -> Mind2WebOutcome:
    positives = {c.node_id for c in step.pos}
    gold = operation_string(step.op, step.value)
    record = {
        "split": step.split,
        "annotation_id": step.annotation_id,
        "action_uid": step.action_uid,
        "step": step.index,
        "gold_nodes": sorted(positives),
        "gold_operation": gold,
    }
    try:
        observation = parse_node_page(step.cleaned_html, candidates=[*step.pos, *step.neg], limits=limits)
    except PageTooComplex as error:
        score = score_step(step.split, step.annotation_id, None, "", positives, gold)
        record.update(
            {"refused": str(error), "element_correct": False, "operation_f1": score.op_f1, "step_success": False}
        )
        return Mind2WebOutcome(score, record, 0.0, Usage(), False, True)
    screenshot, refused = None, None
    if step.screenshot is not None:
        try:
            screenshot = await asyncio.to_thread(read_screenshot, step.screenshot)
        except ScreenshotRefused as error:
            refused = f"unreadable: {error}"
    started = time.perf_counter()
    # The page is read here, with the step's own candidates, so it goes to the graph already read.
    given = PredictionInput(
        history=history_from_reprs(step.previous),
        brain=brain,
        model=model,
        options=options or PredictOptions(),
        task=Task(goal=step.task[:2000]),
        screenshot=screenshot,
    )
    prediction = await predict_resolved(given, ResolvedInput(observation=observation), graph)
    latency = (time.perf_counter() - started) * 1000
    node_id, op, value = as_operation(prediction.action, observation)
    predicted = operation_string(op, value)
    score = score_step(step.split, step.annotation_id, node_id, predicted, positives, gold)
    record.update(
        {
            "candidates": len(observation.candidates),
            "predicted_node": node_id,
            "predicted_operation": predicted,
            "element_correct": score.element_correct,
            "operation_f1": round(score.op_f1, 4),
            "step_success": score.step_success,
            "brain": prediction.brain,
            "fallback": prediction.fallback_used,
            "rationale": prediction.rationale,
            "latency_ms": round(latency, 2),
        }
    )
    if step.screenshot is not None:
        record["screenshot"] = refused or prediction.details.get("screenshot")
    if "choice" in prediction.details:
        record["choice"] = prediction.details["choice"]
    return Mind2WebOutcome(score, record, latency, prediction.usage, prediction.fallback_used, False)


def screenshot_fates(outcomes: list[Mind2WebOutcome]) -> dict | None:
    """Steps whose row had a screenshot, by what became of it (sent, not sent, unreadable); None when none had."""
    fates = Counter(
        re.split(r"[:,]", o.record["screenshot"] or "not used")[0] for o in outcomes if "screenshot" in o.record
    )
    return dict(sorted(fates.items())) or None


def _limited(steps: Iterable[Mind2WebStep], tasks: int | None) -> Iterator[Mind2WebStep]:
    """The steps of the first `tasks` tasks met (rows of later tasks are skipped, not read into memory)."""
    seen: set[tuple[str, str]] = set()
    for step in steps:
        key = (step.split, step.annotation_id)
        if tasks is not None and key not in seen and len(seen) >= tasks:
            continue
        seen.add(key)
        yield step


async def evaluate_mind2web(
    steps: Iterable[Mind2WebStep],
    graph: TwinGraph,
    *,
    brain: str,
    model: str | None,
    concurrency: int = 4,
    tasks: int | None = None,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
    on_step: Callable[[dict], None] | None = None,
    options: PredictOptions | None = None,
) -> dict:
    """Every step scored; the report holds the metrics per split, the run's details and the published figures.
    `on_step` receives each step's log record as it finishes (the CLI appends them to a JSONL file)."""
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    semaphore = asyncio.Semaphore(max(1, concurrency))
    outcomes: list[Mind2WebOutcome] = []

    async def one(step: Mind2WebStep) -> Mind2WebOutcome:
        async with semaphore:
            return await evaluate_step(graph, step, brain=brain, model=model, limits=limits, options=options)

    chunk: list[Mind2WebStep] = []
    source = _limited(steps, tasks)
    while True:
        chunk = [step for _, step in zip(range(max(16, 2 * concurrency)), source, strict=False)]
        if not chunk:
            break
        for outcome in await asyncio.gather(*(one(step) for step in chunk)):
            outcomes.append(outcome)
            if on_step is not None:
                on_step(outcome.record)
    usage = Usage()
    for outcome in outcomes:
        usage = usage.add(outcome.usage)
    latencies = sorted(o.latency_ms for o in outcomes if not o.refused)

    def pick(q: float) -> float | None:
        return round(latencies[min(len(latencies) - 1, int(q * (len(latencies) - 1) + 0.5))], 2) if latencies else None

    return {
        "benchmark": "Multimodal-Mind2Web",
        "splits": split_metrics(o.score for o in outcomes),
        "run": {
            "brain": brain,
            "model": model,
            "persona": None,
            "n_steps": len(outcomes),
            "grounding": options.grounding if options else None,
            "vision": options.vision if options else None,
            "candidates": "every pos_candidates and neg_candidates element of the row; an LLM prompt over its "
            "budget keeps those most relevant to the task (agent/candidate_ranking.py)",
            "started": started_at,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "latency": {"p50_ms": pick(0.5), "p95_ms": pick(0.95)},
            "usage": usage.model_dump(),
            "fallbacks": sum(o.fallback for o in outcomes),
            "pages_refused": sum(o.refused for o in outcomes),
            "screenshots": screenshot_fates(outcomes),
        },
        "published": MIND2WEB_PUBLISHED,
        "citation": CITATION,
    }
