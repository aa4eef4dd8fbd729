"""What flows through the twin's graph for one prediction."""

from __future__ import annotations

from typing import TypedDict

from agent.actions import Action
from agent.decision import Decision, Usage
from agent.history import Step
from agent.options import PredictOptions
from agent.page.observation import Observation
from agent.screenshots import Screenshot
from agent.tasks import Task
from personas.memory_types import Memory
from personas.persona import Persona


class TwinState(TypedDict, total=False):
    persona: Persona | None
    observation: Observation
    history: list[Step]
    options: PredictOptions
    brain: str  # the brain asked first
    model: str | None
    task: Task | None  # the goal the twin was given, if any
    screenshot: Screenshot | None  # the page as a picture (brains that look at it)
    page_html: str | None  # the page's simplified HTML in full (the OPeRA protocol prompt)
    memories: list[Memory]
    no_memories: bool  # a recall was made and the person has none stored
    decision: Decision | None  # the brain's latest proposal (reason)
    action: Action | None  # that proposal made concrete for this page (act)
    feedback: str | None  # why the last action was rejected (ground)
    attempts: int
    usage: Usage
    fallback_reason: str | None
    answered_by: str  # the brain whose action stands
    fell_back: bool  # the fallback node answered
