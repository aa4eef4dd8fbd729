"""One replayed step of a recorded session: its inputs, its prediction, and a unit of work that runs anywhere.

Why: both ways of running an evaluation predict a step with the same function. In this process the twin graph
recalls from the memory store as it predicts. On Ray (TWINSIM_EXECUTOR=ray) the workers have no memory store:
the driver recalls ahead through the very recall the graph makes (`agent.memory_recall.Recall`), the
workers' graphs answer from those recalls, and so both runs see the same memories and predict the same actions.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from agent.actions import Action
from agent.brains.base import Brain
from agent.evaluation.metrics import StepRecord
from agent.graph import TwinGraph
from agent.history import Step
from agent.memory_recall import RecallRequest
from agent.page.observation import EMPTY_OBSERVATION, Observation
from agent.page.parse import parse_page
from agent.page.read_page import ReadPage
from agent.predict_options import PredictOptions
from agent.predict_use_case import PredictionServices, predict
from agent.prediction_input import Page, PredictionInput
from agent.recorded_sessions import RecordedSession
from agent.screenshots import Screenshot, ScreenshotRefused, read_screenshot
from agent.usage import Usage
from personas.memory_types import Memory
from personas.persona import Persona


@dataclass
class StepOutcome:
    record: StepRecord
    latency_ms: float
    usage: Usage
    fallback: bool
    rationale: str | None = None  # kept in the step log, so a finished run can be read step by step
    screenshot: str | None = None  # what became of the step's screenshot (sent, not sent and why, unreadable)


@dataclass(frozen=True)
class StepUnit:
    """Step `step` of the work's session number `session`."""

    session: int
    step: int


def history_before(session: RecordedSession, t: int) -> list[Step]:
    """The gold steps 1..t-1 with their rationales: what the twin knows when it predicts step t."""
    return [
        Step(action=s.action, rationale=s.rationale, click_type=s.click_type, url=s.url, timestamp=s.timestamp)
        for s in session.steps[:t]
    ]


def observe(session: RecordedSession, t: int) -> Observation:
    """The page of step t, or no page (page-free) when the recording has none."""
    gold = session.steps[t]
    return parse_page(gold.simplified_html, url=gold.url) if gold.simplified_html else EMPTY_OBSERVATION


def step_record(session: RecordedSession, t: int, pred: Action, pred_click_type: str | None) -> StepRecord:
    """Step t's prediction beside its gold action, as the metrics read it."""
    gold = session.steps[t]
    return StepRecord(
        session.session_id, t, t == len(session.steps) - 1, gold.action, gold.click_type, pred, pred_click_type
    )


def screenshot_of(session: RecordedSession, t: int) -> tuple[Screenshot | None, str | None]:
    """Step t's screenshot (the row's `image`, read with --screenshots) checked, or why it cannot be used."""
    data = session.steps[t].screenshot
    if data is None:
        return None, None
    try:
        return read_screenshot(data), None
    except ScreenshotRefused as error:
        return None, f"unreadable: {error}"


class SessionPersonas:
    """The personas of an evaluation's sessions, looked up by id as the use case looks up a stored one."""

    def __init__(self, personas: list[Persona | None]) -> None:
        self._by_id = {persona.id: persona for persona in personas if persona is not None}

    def get_persona(self, persona_id: str) -> Persona:
        return self._by_id[persona_id]


def read_recorded(page: Page) -> ReadPage:
    """A recorded step's page is OPeRA simplified HTML, read as the recording has it (no size limits: the
    dataset's pages are scored whole)."""
    return ReadPage(page.simplified_html or "", parse_page(page.simplified_html, url=page.url))


def step_input(
    session: RecordedSession,
    persona: Persona | None,
    t: int,
    *,
    brain: str,
    model: str | None,
    options: PredictOptions,
    screenshot: Screenshot | None = None,
) -> PredictionInput:
    """What step t of the session asks the twin: its persona, its page (none: page-free), the gold history."""
    gold = session.steps[t]
    return PredictionInput(
        persona_id=persona.id if persona is not None else None,
        page=Page(simplified_html=gold.simplified_html, url=gold.url) if gold.simplified_html else None,
        history=history_before(session, t),
        brain=brain,
        model=model,
        options=options,
        screenshot=screenshot,
    )


async def predict_step(
    graph: TwinGraph,
    session: RecordedSession,
    persona: Persona | None,
    t: int,
    *,
    brain: str,
    model: str | None,
    options: PredictOptions,
) -> StepOutcome:
    """Step t predicted through the same use case as POST /predict and `twinsim predict`."""
    screenshot, refused = screenshot_of(session, t)
    given = step_input(session, persona, t, brain=brain, model=model, options=options, screenshot=screenshot)
    services = PredictionServices(graph=graph, personas=SessionPersonas([persona]), read=read_recorded)
    started = time.perf_counter()
    prediction = await predict(given, services)
    latency = (time.perf_counter() - started) * 1000
    record = step_record(session, t, prediction.action, prediction.click_type)
    return StepOutcome(
        record,
        latency,
        prediction.usage,
        prediction.fallback_used,
        prediction.rationale,
        refused or prediction.details.get("screenshot"),
    )


class RecalledMemories:
    """A memory source that answers from recalls made ahead; a recall nobody made ahead is a bug, not a miss."""

    def __init__(self, recalled: Mapping[RecallRequest, list[Memory]]) -> None:
        self._recalled = dict(recalled)

    def recall(self, persona_id: str, query: str, k: int = 5) -> list[Memory]:
        return self._recalled[RecallRequest(persona_id, query, k)]


@dataclass
class StepWork:
    """Everything a worker needs to predict any step of the evaluation; shipped once, called per step.

    The twin graph is built on first use in each process (a compiled graph does not travel)."""

    sessions: list[RecordedSession]
    personas: list[Persona | None]  # per session
    brains: dict[str, Brain]
    memory: RecalledMemories
    brain: str
    model: str | None
    options: PredictOptions
    _graph: TwinGraph | None = field(default=None, repr=False)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_graph": None}

    def __call__(self, unit: StepUnit) -> StepOutcome:
        if self._graph is None:
            self._graph = TwinGraph(self.brains, memory=self.memory)
        return asyncio.run(
            predict_step(
                self._graph,
                self.sessions[unit.session],
                self.personas[unit.session],
                unit.step,
                brain=self.brain,
                model=self.model,
                options=self.options,
            )
        )
