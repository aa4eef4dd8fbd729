"""What a live simulation records: per twin and step, where the twin was, what it did and why, which
memories it drew on, and how its run ended. Plain pydantic models, written to JSON as they are.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agent.actions import Action
from agent.browser.failures import FailureKind
from agent.exports.decision_record import DecisionEvidence, DecisionRecord, MemoryRef
from agent.simulation.checkout_details import FilledField

Outcome = Literal["left", "purchased", "task_reached", "max_steps", "error"]


class MemoryUsed(BaseModel):
    id: str | None = Field(None, description="The memory's id in the persona's store.")
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
    step: int | None = Field(
        None,
        description="Actions taken when a page first met the criteria (pages are judged "
        "after each action, not the start page).",
    )
    url: str | None = Field(None, description="That page's address.")


class Box(BaseModel):
    """A rectangle on a screenshot, in CSS pixels from its top-left corner (the screenshot is the viewport)."""

    x: float
    y: float
    width: float
    height: float


class ScreenSize(BaseModel):
    width: int
    height: int


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
    fallback_reason: str | None = None
    seed: int | None = None
    screenshot: str | None = Field(
        None, description="Path of the screenshot taken before acting, relative to the run directory."
    )
    screenshot_size: ScreenSize | None = Field(None, description="The screenshot's size in CSS pixels (the viewport).")
    target_box: Box | None = Field(
        None,
        description="Where the element acted on was on the screenshot (scrolled into "
        "view first, as a click would), so a report can mark it. None without a screenshot, "
        "when the twin left, or when the element had no box.",
    )
    result_url: str | None = Field(None, description="Where the page was after the action.")
    predict_ms: float = 0.0
    filled: list[FilledField] = Field(
        default_factory=list,
        description="Checkout form fields filled with TEST details "
        "before this click (agent/simulation/checkout_form.py), and required ones left empty.",
    )
    page_sha256: str | None = Field(
        None,
        description="SHA-256 of the page as the twin read it; the decision export stores it as pages/<sha256>.html.",
    )
    evidence: DecisionEvidence | None = Field(
        None,
        description="What moved the decision (embedded brain): the label's "
        "probabilities, its drivers, and each driver in the twin's words.",
    )
    page_html: str | None = Field(
        None,
        exclude=True,
        repr=False,
        description="The simplified page, held only until the decision export stores it.",
    )

    def decision(self) -> DecisionRecord:
        """This step as a row of the decision export (agent/exports)."""
        return DecisionRecord(
            step=self.step,
            url=self.url,
            page_sha256=self.page_sha256,
            page_type=self.page_type,
            page_title=self.title,
            action=self.action,
            click_type=self.click_type,
            rationale=self.rationale,
            memories=[MemoryRef(id=m.id, kind=m.kind, text=m.text, score=m.score) for m in self.memories],
            evidence=self.evidence,
            brain=self.brain,
            fallback_used=self.fallback_used,
            fallback_reason=self.fallback_reason,
            seed=self.seed,
            page_html=self.page_html,
        )


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
    node: str | None = Field(
        None,
        description="The Ray node that ran this twin's session (TWINSIM_EXECUTOR=ray, "
        "agent/executors/ray_twins.py); None in process.",
    )
