"""The answer to one prediction request, with everything needed to trust or debug it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.actions import Action
from agent.decision import Usage
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
