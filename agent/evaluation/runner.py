"""Replay recorded sessions step by step and score the twin's predictions, as the OPeRA paper does.

At step t the twin gets the persona, the gold actions 1..t-1 with their rationales, and the page of
step t (page-free when the recording has none); its prediction is scored against gold action t
(Wang et al. 2025, arXiv 2506.05606). Finished steps go to a checkpoint file, so a stopped run resumes.
Steps run in this process with bounded concurrency, or on an executor (agent/executors/: Ray) in batches: see steps.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from agent.actions import parse_action
from agent.brains.names import BrainName
from agent.evaluation.metrics import compute_metrics
from agent.evaluation.published import PUBLISHED_RESULTS
from agent.evaluation.steps import (
    RecalledMemories,
    StepOutcome,
    StepUnit,
    StepWork,
    history_before,
    observe,
    predict_step,
    step_record,
)
from agent.executors.units import UnitExecutor
from agent.graph import TwinGraph
from agent.memory_recall import RecallRequest
from agent.predict_options import GroundingStrategy, PredictOptions, PromptStyle, VisionPolicy
from agent.recorded_sessions import RecordedSession, user_id_from_session_id
from agent.usage import Usage
from personas.persona import Persona

ABLATIONS = ("persona", "rationale", "memory")


class CheckpointMismatch(ValueError):
    """The checkpoint file belongs to a run with other settings."""


@dataclass
class EvalConfig:
    brain: str = BrainName.EMBEDDED.value
    model: str | None = None
    ablate: frozenset[str] = frozenset()
    concurrency: int = 4
    checkpoint: Path | None = None
    fingerprint_extra: dict = field(default_factory=dict)
    prompt_style: PromptStyle | None = None  # LLM brain; None: its setting
    grounding: GroundingStrategy | None = None
    vision: VisionPolicy | None = None
    screenshots: bool = False  # the rows' `image` goes with each step

    def options(self) -> PredictOptions:
        return PredictOptions(
            ablate_persona="persona" in self.ablate,
            ablate_rationale="rationale" in self.ablate,
            ablate_memory="memory" in self.ablate,
            prompt_style=self.prompt_style,
            grounding=self.grounding,
            vision=self.vision,
        )

    def fingerprint(self) -> str:
        data = {"brain": self.brain, "model": self.model, "ablate": sorted(self.ablate), **self.fingerprint_extra}
        llm = {
            "prompt_style": self.prompt_style,
            "grounding": self.grounding,
            "vision": self.vision,
            "screenshots": self.screenshots,
        }
        data.update({key: value for key, value in llm.items() if value})  # unset: the fingerprint of older runs
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


class _Checkpoint:
    """Append-only JSONL: a header with the run's fingerprint, then one line per finished step."""

    def __init__(self, path: Path | None, fingerprint: str) -> None:
        self.path, self.fingerprint = path, fingerprint
        self.done: dict[tuple[str, int], dict] = {}
        if path and path.exists() and path.stat().st_size:
            lines = path.read_text().splitlines()
            header = json.loads(lines[0])
            if header.get("fingerprint") != fingerprint:
                raise CheckpointMismatch(f"{path} was written by a run with other settings; use another --checkpoint")
            for line in lines[1:]:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a crash: that step runs again
                self.done[(row["session_id"], row["step"])] = row
        elif path:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"fingerprint": fingerprint}) + "\n")

    def append(self, row: dict) -> None:
        if self.path:
            with self.path.open("a") as handle:
                handle.write(json.dumps(row) + "\n")


def _row(outcome: StepOutcome) -> dict:
    r = outcome.record
    return {
        "session_id": r.session_id,
        "step": r.step,
        "pred": r.pred.model_dump(),
        "pred_click_type": r.pred_click_type,
        "latency_ms": outcome.latency_ms,
        "usage": outcome.usage.model_dump(),
        "fallback": outcome.fallback,
        "rationale": outcome.rationale,
        "screenshot": outcome.screenshot,
    }


async def evaluate(
    sessions: list[RecordedSession],
    personas: Mapping[str, Persona],
    graph: TwinGraph,
    config: EvalConfig,
    on_step: Callable[[], object] | None = None,
    executor: UnitExecutor | None = None,
) -> dict:
    """Score every step of every session; returns the report (metrics, run details, published figures).
    With an executor, the steps not yet checkpointed run there, with the memories recalled here first."""
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    checkpoint = _Checkpoint(config.checkpoint, config.fingerprint())
    options = config.options()
    known = list(personas)
    missing_personas: set[str] = set()
    session_personas: list[Persona | None] = []
    for session in sessions:
        user_id = session.user_id if session.user_id in personas else user_id_from_session_id(session.session_id, known)
        session_personas.append(personas.get(user_id) if user_id else None)
        if session_personas[-1] is None:
            missing_personas.add(user_id or session.session_id)
    units = [StepUnit(i, t) for i, session in enumerate(sessions) for t in range(len(session.steps))]

    def resumed(unit: StepUnit) -> StepOutcome | None:
        session = sessions[unit.session]
        cached = checkpoint.done.get((session.session_id, unit.step))
        if cached is None:
            return None
        record = step_record(session, unit.step, parse_action(cached["pred"]), cached["pred_click_type"])
        return StepOutcome(
            record,
            cached["latency_ms"],
            Usage(**cached["usage"]),
            cached["fallback"],
            cached.get("rationale"),
            cached.get("screenshot"),
        )

    def finished(outcome: StepOutcome) -> StepOutcome:
        checkpoint.append(_row(outcome))
        if on_step:
            on_step()
        return outcome

    by_unit: dict[StepUnit, StepOutcome] = {}
    for unit in units:
        cached = resumed(unit)
        if cached is not None:
            by_unit[unit] = cached
            if on_step:
                on_step()
    todo = [unit for unit in units if unit not in by_unit]
    if executor is None:
        semaphore = asyncio.Semaphore(max(1, config.concurrency))

        async def one(unit: StepUnit) -> None:
            async with semaphore:
                outcome = await predict_step(
                    graph,
                    sessions[unit.session],
                    session_personas[unit.session],
                    unit.step,
                    brain=config.brain,
                    model=config.model,
                    options=options,
                )
            by_unit[unit] = finished(outcome)

        await asyncio.gather(*(one(unit) for unit in todo))
    elif todo:
        memory = await asyncio.to_thread(
            _recall_ahead, graph, sessions, session_personas, todo, options, config.concurrency, config.brain
        )
        work = StepWork(
            sessions, session_personas, graph.brains_for(config.brain), memory, config.brain, config.model, options
        )

        def run_there() -> None:
            for unit, outcome in zip(todo, executor.map(work, todo), strict=True):
                by_unit[unit] = finished(outcome)

        await asyncio.to_thread(run_there)
    outcomes = [by_unit[unit] for unit in units]

    latencies = sorted(o.latency_ms for o in outcomes)
    usage = Usage()
    for o in outcomes:
        usage = usage.add(o.usage)
    pick = (
        (lambda q: round(latencies[min(len(latencies) - 1, int(q * (len(latencies) - 1) + 0.5))], 2))
        if latencies
        else (lambda q: None)
    )
    return {
        "metrics": compute_metrics([o.record for o in outcomes]),
        "run": {
            "brain": config.brain,
            "model": config.model,
            "ablations": sorted(config.ablate),
            "task": "page-conditioned" if any(s.simplified_html for x in sessions for s in x.steps) else "page-free",
            "n_sessions": len(sessions),
            "sessions_without_persona": sorted(missing_personas),
            "started": started_at,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "latency": {
                "p50_ms": pick(0.5),
                "p95_ms": pick(0.95),
                "mean_ms": round(sum(latencies) / len(latencies), 2) if latencies else None,
            },
            "usage": usage.model_dump(),
            "fallbacks": sum(o.fallback for o in outcomes),
            "prompt_style": config.prompt_style,
            "grounding": config.grounding,
            "vision": config.vision,
            "screenshots": screenshot_summary(outcomes) if config.screenshots else None,
            "resumed_steps": len(checkpoint.done),
            "executor": "inprocess" if executor is None else type(executor).__name__.removesuffix("Executor").lower(),
        },
        "published": PUBLISHED_RESULTS,
    }


def screenshot_summary(outcomes: list[StepOutcome]) -> dict:
    """How many steps had a screenshot, and what became of them (sent, not sent and why, unreadable)."""
    fates = Counter(re.split(r"[:,]", o.screenshot)[0] if o.screenshot else "none in the row" for o in outcomes)
    return {"steps": len(outcomes), "by_fate": dict(sorted(fates.items()))}


def _recall_ahead(
    graph: TwinGraph,
    sessions: list[RecordedSession],
    personas: list[Persona | None],
    units: list[StepUnit],
    options: PredictOptions,
    concurrency: int,
    brain: str | None = None,
) -> RecalledMemories:
    """Every recall the steps will make, made here with the graph's own calls (each distinct one once)."""

    def request(unit: StepUnit) -> RecallRequest | None:
        persona = personas[unit.session]
        if not graph.recall.wants_memories(persona, options, brain):
            return None  # no page to parse either
        session = sessions[unit.session]
        return graph.recall.request(
            persona, observe(session, unit.step), history_before(session, unit.step), options, brain=brain
        )

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        requests = sorted({r for r in pool.map(request, units) if r is not None})
        return RecalledMemories(dict(zip(requests, pool.map(graph.recall, requests), strict=True)))
