"""One step of a session's past, as the twin (and the evaluation) sees it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agent.actions import Action


class Step(BaseModel):
    """A past action with what is known around it. Only `action` is required."""

    model_config = ConfigDict(extra="forbid")

    action: Action
    rationale: str | None = Field(None, max_length=20_000)
    click_type: str | None = Field(None, description="OPeRA click type of a click, when the recorder knew it.")
    url: str | None = Field(None, max_length=8192)
    timestamp: str | None = Field(None, description="ISO-8601 time of the action, when known.")
    delay_s: float | None = Field(None, ge=0, description="Seconds since the previous action, when known.")
