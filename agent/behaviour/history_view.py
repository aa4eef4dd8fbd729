"""A session's past (agent.history.Step) in the compact form the behaviour model reads.

Each step becomes its label (click type, input or terminate), element name, typed text and time in
epoch seconds. A click without a recorded click type gets one from its name (agent.page.click_types).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from agent.behaviour.labels import INPUT, TERMINATE
from agent.history import Step
from agent.page.click_types import CLICK_TYPES, infer_click_type
from agent.timestamps import epoch_seconds

_CLICK_TYPE_SET = frozenset(CLICK_TYPES)


@dataclass(frozen=True, slots=True)
class PastAction:
    label: str
    name: str | None
    text: str | None
    timestamp: float | None
    rationale: str | None = None


@lru_cache(maxsize=8192)
def click_type_from_name(name: str) -> str:
    """The click type of an element name; "other" when the name says nothing (or inference fails)."""
    try:
        inferred = infer_click_type(name)
    except Exception:  # noqa: BLE001 - a missing or failing classifier must not stop a prediction
        return "other"
    return inferred if inferred in _CLICK_TYPE_SET else "other"


def label_of_step(step: Step) -> str:
    action = step.action
    if action.type == "input":
        return INPUT
    if action.type == "terminate":
        return TERMINATE
    if step.click_type in _CLICK_TYPE_SET:
        return step.click_type
    return click_type_from_name(action.name)


def view_history(history: Sequence[Step]) -> list[PastAction]:
    """The compact past; times come from timestamps, or from delays added up when only those are known."""
    past: list[PastAction] = []
    clock: float | None = None
    for step in history:
        when = epoch_seconds(step.timestamp) if step.timestamp else None
        if when is None and step.delay_s is not None and clock is not None:
            when = clock + step.delay_s
        elif when is None and step.delay_s is not None and clock is None and not past:
            when = 0.0
        clock = when if when is not None else clock
        action = step.action
        past.append(
            PastAction(
                label=label_of_step(step),
                name=getattr(action, "name", None),
                text=getattr(action, "text", None),
                timestamp=when,
                rationale=step.rationale,
            )
        )
    return past
