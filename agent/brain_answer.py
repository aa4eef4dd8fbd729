"""What a brain answers (Decision) and how it says it cannot (BrainError).

Why here, not in agent/brains/: the decide step, the graph and the embedded model's engine read them, and the
engine sits below the brains (agent/brains/embedded.py wraps it)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.actions import Action
from agent.usage import Usage


class Decision(BaseModel):
    """A brain's answer: the action, the rationale behind it, and what it cost."""

    action: Action
    rationale: str
    usage: Usage = Field(default_factory=Usage)
    model: str | None = None
    details: dict = Field(default_factory=dict, description="Brain-specific evidence: probabilities, raw text ...")


class BrainError(Exception):
    """A brain could not answer (timeout, provider error, unparseable output); the graph falls back.
    `usage` is what the attempt still cost: a call whose answer was unusable was paid for all the same."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage or Usage()
