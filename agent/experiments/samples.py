"""One twin's run through one variant of an A/B experiment: the unit every statistic and theme is computed on.

Kept apart from the runner so the statistics, the themes and the report can be tested on hand-made samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from agent.actions import Action
from agent.exports.decision_record import DecisionRecord


class Sample(BaseModel):
    """What one twin (a persona, instanced `instance` of k times with seeded sampling) did on one variant."""

    variant: str
    persona_id: str
    instance: int  # 0..k-1
    action_type: Literal["click", "input", "terminate"]  # first action on the variant's first page
    click_type: str | None  # OPeRA click type of that click
    element: str | None  # the name acted on (click/input), None for terminate
    purchase: bool  # made a purchase click (click_type == "purchase") at any step of the variant
    leave: bool  # terminated at any step
    target_clicks: dict[str, bool] = {}  # target element name -> clicked at any step
    rationale: str = ""
    segments: dict[str, str] = {}  # segment dimension -> bucket, e.g. {"conscientiousness": "high"}
    steps: int = 1
    fallbacks: int = 0  # decisions of this run the embedded brain made because the requested brain failed
    task_reached: bool | None = None  # with a judged task: whether a page the twin was on met it
    task_step: int | None = None  # actions taken when it first did (pages are judged after each action)
    # Every step's decision, for the decision export (agent/exports): carried from the unit to whoever keeps the
    # samples, never part of the sample's JSON (samples.jsonl, the store keep the run-level facts only).
    decisions: list[DecisionRecord] = Field(default_factory=list, exclude=True, repr=False)
    # The Ray node that ran a live unit (agent/experiments/live_on_ray.py), None in process; like the decisions, not
    # part of the sample's JSON: where a twin ran is not what it did.
    node: str | None = Field(None, exclude=True, repr=False)


class ActedStep(Protocol):
    """A step of a run, recorded (agent.history.Step) or browsed live (agent.simulation.trace.TraceStep)."""

    @property
    def action(self) -> Action: ...

    @property
    def click_type(self) -> str | None: ...

    @property
    def rationale(self) -> str | None: ...


def to_sample(
    steps: Sequence[ActedStep],
    *,
    variant: str,
    persona_id: str,
    instance: int,
    targets: list[str],
    segments: dict[str, str],
    purchase: bool,
    leave: bool,
    fallbacks: int = 0,
    task_reached: bool | None = None,
    task_step: int | None = None,
    decisions: list[DecisionRecord] | None = None,
) -> Sample:
    """A run's steps as a sample: the first action says what the twin did on arrival, the step that ended the
    visit says best why it bought or left; whether it bought or left is the caller's (pages or a live site)."""
    first, last = steps[0], steps[-1]
    clicked = [s.action.name for s in steps if s.action.type == "click"]
    return Sample(
        variant=variant,
        persona_id=persona_id,
        instance=instance,
        action_type=first.action.type,
        click_type=first.click_type if first.action.type == "click" else None,
        element=getattr(first.action, "name", None),
        purchase=purchase,
        leave=leave,
        target_clicks={t: any(name == t or name.startswith(t + ".") for name in clicked) for t in targets},
        rationale=last.rationale or "",
        segments=segments,
        steps=len(steps),
        fallbacks=fallbacks,
        task_reached=task_reached,
        task_step=task_step,
        decisions=decisions or [],
    )
