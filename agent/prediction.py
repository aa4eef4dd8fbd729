"""The answer to one prediction request, with everything needed to trust or debug it, and how it is made from
the decide step's outcome (the graph's and bulk runs' alike)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.actions import Action
from agent.decide_step import Grounded
from agent.grounding import click_type_of
from agent.memory_recall import NO_MEMORIES
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.usage import Usage
from personas.memory_types import Memory


class Prediction(BaseModel):
    action: Action
    rationale: str
    click_type: str | None = Field(
        None, description="OPeRA click type of the clicked element (None for input/terminate)."
    )
    brain: str = Field(..., description="The brain whose action this is (after any fallback).")
    requested_brain: str
    model: str | None = None
    fallback_used: bool = False
    fallback_reason: str | None = None
    attempts: int = Field(1, description="Brain calls made before the action was grounded.")
    memories: list[Memory] = Field(default_factory=list)
    latency_ms: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    details: dict = Field(default_factory=dict)


def prediction_of(
    given: PredictionInput,
    resolved: ResolvedInput,
    grounded: Grounded,
    memories: list[Memory],
    no_memories: bool,
    latency_ms: float,
) -> Prediction:
    """`no_memories`: a recall was made and the person has none stored, which the details say. Built without
    re-validation: every part is already a checked model, and bulk runs make one per decision."""
    decision = grounded.decision
    details = decision.details
    if given.screenshot is not None and "screenshot" not in details:
        details = {
            **details,
            "screenshot": f"not used: the {grounded.answered_by} brain reads the page's elements, not images",
        }
    if no_memories:  # a persona stored with no memories decides from its profile alone
        details = {**details, "memories": NO_MEMORIES}
    fallback_used = grounded.fallback_reason is not None
    return Prediction.model_construct(
        action=grounded.action,
        rationale=decision.rationale,
        click_type=click_type_of(grounded.action, resolved.observation, decision.details),
        brain=grounded.answered_by,
        requested_brain=given.brain_name,
        model=decision.model,
        fallback_used=fallback_used,
        fallback_reason=grounded.fallback_reason,
        attempts=grounded.attempts,
        memories=memories,
        latency_ms=latency_ms,
        usage=grounded.usage,
        details=details,
    )
