"""Flags several commands share (--brain, --vision, --grounding, --prompt-style, --task and its criteria), checked
the same way everywhere so a wrong value gets the same sentence whichever command it was given to."""

from __future__ import annotations

import typer
from pydantic import ValidationError

from agent.brains.names import BRAIN_NAMES, known_brain
from agent.predict_options import GROUNDING_STRATEGIES, PROMPT_STYLES, VISION_POLICIES
from service.cli.failure import fail, validation_message


def brain_flag(value: str) -> str:
    """--brain: one of the registered names, refused with the same sentence as the API's."""
    try:
        known_brain(value)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    return value


BRAIN_HELP = f"The brain that decides: {', '.join(BRAIN_NAMES)}."


def _one_of(choices: tuple[str, ...], flag: str):
    """A callback accepting one of `choices`, written with - or _ (opera-protocol = opera_protocol)."""

    def check(value: str | None) -> str | None:
        if value is None:
            return None
        folded = value.strip().lower().replace("-", "_")
        if folded not in choices:
            raise typer.BadParameter(
                f"{flag} {value!r}: choose one of {', '.join(c.replace('_', '-') for c in choices)}"
            )
        return folded

    return check


vision_flag = _one_of(VISION_POLICIES, "--vision")
grounding_flag = _one_of(GROUNDING_STRATEGIES, "--grounding")
prompt_style_flag = _one_of(PROMPT_STYLES, "--prompt-style")
VISION_HELP = (
    "--brain llm: show the model the page's screenshot: auto (when litellm says the model takes images), "
    "always, never (default: TWINSIM_LLM_VISION, auto)."
)
GROUNDING_HELP = (
    "--brain llm: how the model names the element: names, textual-choices, set-of-marks, both (SeeAct, "
    "arXiv 2401.01614; default: TWINSIM_LLM_GROUNDING, names)."
)


def task_from_flags(goal: str | None, url: str | None = None, element: str | None = None, text: str | None = None):
    """--task and its success criteria as one Task, refused with the schema's own reason (agent/tasks.py)."""
    from agent.tasks import Task

    criteria = {k: v for k, v in (("url", url), ("element", element), ("text", text)) if v is not None}
    if goal is None:
        if criteria:
            fail("--task-url, --task-element and --task-text need --task (the goal in words)")
        return None
    try:
        return Task.model_validate({"goal": goal, **({"success": criteria} if criteria else {})})
    except ValidationError as error:
        fail(f"--task: {validation_message(error)}")
