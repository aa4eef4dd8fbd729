"""The three things a twin can do on a page, as one discriminated union (OPeRA's action JSON)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class ClickAction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["click"] = "click"
    name: str = Field(
        ..., min_length=1, max_length=2048, description="The semantic id (`name=`) of the element clicked."
    )


class InputAction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["input"] = "input"
    name: str = Field(..., min_length=1, max_length=2048, description="The semantic id of the field typed into.")
    text: str = Field(..., max_length=10_000, description="The text typed.")


class TerminateAction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["terminate"] = "terminate"


Action = Annotated[ClickAction | InputAction | TerminateAction, Field(discriminator="type")]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)

ACTION_TYPES: tuple[str, ...] = ("click", "input", "terminate")


def parse_action(data: object) -> Action:
    """Validate a dict (or JSON string) into an Action; raises pydantic.ValidationError naming the field."""
    if isinstance(data, (str, bytes)):
        return ACTION_ADAPTER.validate_json(data)
    return ACTION_ADAPTER.validate_python(data)


def same_action(a: Action, b: Action) -> bool:
    """OPeRA exact match: click by name, input by name and text, terminate by type."""
    if a.type != b.type:
        return False
    if a.type == "terminate":
        return True
    if isinstance(a, ClickAction) and isinstance(b, ClickAction):
        return a.name == b.name
    assert isinstance(a, InputAction) and isinstance(b, InputAction)  # the same type, neither click nor terminate
    return a.name == b.name and a.text == b.text
