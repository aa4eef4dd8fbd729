"""Replay recorded sessions step by step and score the twin's predictions, as the OPeRA paper does.

At step t the twin gets the persona, the gold actions 1..t-1 with their rationales, and the page of
step t (page-free when the recording has none); its prediction is scored against gold action t
(Wang et al. 2025, arXiv 2506.05606). Finished steps go to a checkpoint file, so a stopped run resumes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping

from agent.actions import parse_action
from agent.brains.base import Usage
from agent.evaluation.metrics import StepRecord, compute_metrics
from agent.evaluation.published import PUBLISHED_RESULTS
from agent.evaluation.recorded_sessions import RecordedSession, user_id_from_session_id
from agent.graph import TwinGraph
from agent.history import Step
from agent.observation import EMPTY_OBSERVATION, parse_page
from agent.options import PredictOptions
from personas.persona import Persona

ABLATIONS = ("persona", "rationale", "memory")


class CheckpointMismatch(ValueError):
    """The checkpoint file belongs to a run with other settings."""


@dataclass
class EvalConfig:
    brain: str = "embedded"
    model: str | None = None
    ablate: frozenset[str] = frozenset()
    concurrency: int = 4
    checkpoint: Path | None = None
    fingerprint_extra: dict = field(default_factory=dict)

    def options(self) -> PredictOptions:
        return PredictOptions(ablate_persona="persona" in self.ablate, ablate_rationale="rationale" in self.ablate,
                              ablate_memory="memory" in self.ablate)

    def fingerprint(self) -> str:
        data = {"brain": self.brain, "model": self.model, "ablate": sorted(self.ablate), **self.fingerprint_extra}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class _Outcome:
    record: StepRecord
    latency_ms: float
    usage: Usage
    fallback: bool


def _history(session: RecordedSession, t: int) -> list[Step]:
    return [Step(action=s.action, rationale=s.rationale, click_type=s.click_type, url=s.url, timestamp=s.timestamp)
            for s in session.steps[:t]]


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


def _row(outcome: _Outcome) -> dict:
    r = outcome.record
    return {"session_id": r.session_id, "step": r.step, "pred": r.pred.model_dump(), "pred_click_type": r.pred_click_type,
            "latency_ms": outcome.latency_ms, "usage": outcome.usage.model_dump(), "fallback": outcome.fallback}


async def evaluate(
    sessions: list[RecordedSession],
    personas: Mapping[str, Persona],
    graph: TwinGraph,
    config: EvalConfig,
    on_step: Callable[[], None] | None = None,
) -> dict:
    """Score every step of every session; returns the report (metrics, run details, published figures)."""
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    checkpoint = _Checkpoint(config.checkpoint, config.fingerprint())
    semaphore = asyncio.Semaphore(max(1, config.concurrency))
    options = config.options()
    known = list(personas)
    missing_personas: set[str] = set()

    async def one(session: RecordedSession, persona: Persona | None, t: int) -> _Outcome:
        gold = session.steps[t]
        is_last = t == len(session.steps) - 1
        cached = checkpoint.done.get((session.session_id, t))
        if cached is not None:
            record = StepRecord(session.session_id, t, is_last, gold.action, gold.click_type,
                                parse_action(cached["pred"]), cached["pred_click_type"])
            if on_step:
                on_step()
            return _Outcome(record, cached["latency_ms"], Usage(**cached["usage"]), cached["fallback"])
        async with semaphore:
            observation = parse_page(gold.simplified_html, url=gold.url) if gold.simplified_html else EMPTY_OBSERVATION
            started = time.perf_counter()
            prediction = await graph.predict(persona=persona, observation=observation, history=_history(session, t),
                                             brain=config.brain, model=config.model, options=options)
            latency = (time.perf_counter() - started) * 1000
        record = StepRecord(session.session_id, t, is_last, gold.action, gold.click_type,
                            prediction.action, prediction.click_type)
        outcome = _Outcome(record, latency, prediction.usage, prediction.fallback_used)
        checkpoint.append(_row(outcome))
        if on_step:
            on_step()
        return outcome

    tasks = []
    for session in sessions:
        user_id = session.user_id if session.user_id in personas else user_id_from_session_id(session.session_id, known)
        persona = personas.get(user_id) if user_id else None
        if persona is None:
            missing_personas.add(user_id or session.session_id)
        tasks.extend(one(session, persona, t) for t in range(len(session.steps)))
    outcomes = await asyncio.gather(*tasks)

    latencies = sorted(o.latency_ms for o in outcomes)
    usage = Usage()
    for o in outcomes:
        usage = usage.add(o.usage)
    pick = (lambda q: round(latencies[min(len(latencies) - 1, int(q * (len(latencies) - 1) + 0.5))], 2)) if latencies else (lambda q: None)
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
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "latency": {"p50_ms": pick(0.5), "p95_ms": pick(0.95),
                        "mean_ms": round(sum(latencies) / len(latencies), 2) if latencies else None},
            "usage": usage.model_dump(),
            "fallbacks": sum(o.fallback for o in outcomes),
            "resumed_steps": len(checkpoint.done),
        },
        "published": PUBLISHED_RESULTS,
    }
