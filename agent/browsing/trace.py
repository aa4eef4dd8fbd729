"""What a live simulation records: per twin and step, where the twin was, what it did and why, which
memories it drew on, and how its run ended. Plain pydantic models, written to JSON as they are.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agent.actions import Action
from agent.browsing.checkout_details import FilledField
from agent.browsing.failures import FailureKind

Outcome = Literal["left", "purchased", "task_reached", "max_steps", "error"]


class MemoryUsed(BaseModel):
    kind: str
    text: str
    score: float | None = None


class Failure(BaseModel):
    kind: FailureKind
    message: str
    step: int = Field(..., description="The step it happened at (0 = opening the start URL).")


class TaskProgress(BaseModel):
    """Whether the twin reached its task (agent.tasks.judge on each page it was on) and after how many actions."""

    reached: bool | None = Field(..., description="None when the task has no success criteria.")
    step: int | None = Field(None, description="Actions taken when a page first met the criteria (pages are judged "
                             "after each action, not the start page).")
    url: str | None = Field(None, description="That page's address.")


class TraceStep(BaseModel):
    step: int = Field(..., description="1-based.")
    url: str
    page_type: str
    title: str
    candidates: int = Field(..., description="Elements on the page the twin could act on.")
    action: Action
    click_type: str | None = None
    rationale: str
    memories: list[MemoryUsed] = Field(default_factory=list)
    brain: str
    fallback_used: bool = False
    seed: int | None = None
    screenshot: str | None = Field(None, description="Path of the screenshot taken before acting, relative to the run directory.")
    result_url: str | None = Field(None, description="Where the page was after the action.")
    predict_ms: float = 0.0
    filled: list[FilledField] = Field(default_factory=list, description="Checkout form fields filled with TEST details "
                                      "before this click (agent/browsing/checkout_form.py), and required ones left empty.")


class TwinTrace(BaseModel):
    persona_id: str
    start_url: str
    seed: int
    outcome: Outcome
    failure: Failure | None = None
    steps: list[TraceStep] = Field(default_factory=list)
    final_url: str | None = Field(None, description="The page the twin was on when its run ended.")
    final_page_type: str | None = None
    stages: list[str] = Field(default_factory=list, description="Funnel stages reached, in funnel order.")
    reason: str = Field("", description="Why the run ended, in the twin's words or the failure's.")
    task: TaskProgress | None = Field(None, description="Only when the twin was given a task.")
