"""A twin's task: a goal in words ("buy a 3-cup rice cooker under $100") and, optionally, how to tell it is done.

Defined once here so the API, experiment specs, live runs and evaluations take the same shape and refuse the
same input, and so whether a twin reached its task is judged by one function (`judge`) everywhere.

Success is judged on the page in front of the twin: its address matches a pattern, an element is there (by
its name or by text it shows), or a text is shown. Every criterion given must hold on the same page. A task
without criteria still steers the twin; it just cannot be judged (`reached` is None).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from agent.page.observation import Observation

MAX_TASK_CHARS = 2_000
MAX_CRITERION_CHARS = 2_000
_SPACES = re.compile(r"\s+")


def _folded(text: str | None) -> str:
    return _SPACES.sub(" ", text or "").strip()


class SuccessCriteria(BaseModel):
    """How to tell the task is done; every criterion given must hold on the same page."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(
        None,
        max_length=MAX_CRITERION_CHARS,
        description=(
            "The page's address contains this; '*' stands for any run of characters and then the whole address "
            "must match (e.g. 'http*://shop.example/order-placed*')."
        ),
    )
    element: str | None = Field(
        None,
        max_length=MAX_CRITERION_CHARS,
        description=(
            "An element on the page: its name (or the last parts of it, e.g. 'add_to_cart'), or text it shows."
        ),
    )
    text: str | None = Field(None, max_length=MAX_CRITERION_CHARS, description="Text shown on the page (any case).")

    @field_validator("url", "element", "text")
    @classmethod
    def _not_blank(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if not value.strip():
            raise ValueError(f"the success criterion '{info.field_name}' is empty; leave it out instead")
        return value.strip()

    @model_validator(mode="after")
    def _something(self) -> SuccessCriteria:
        if self.url is None and self.element is None and self.text is None:
            raise ValueError("success criteria need at least one of url, element or text")
        return self


class Task(BaseModel):
    """What the twin came to do. A bare string is read as the goal."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"goal": "buy a 3-cup rice cooker under $100", "success": {"url": "*/order-placed*"}},
                {"goal": "find the return policy", "success": {"text": "return policy"}},
            ]
        },
    )

    goal: str = Field(..., max_length=MAX_TASK_CHARS, description="The task in words, as a person would say it.")
    success: SuccessCriteria | None = Field(None, description="How to tell it is done; without it, never judged.")

    @model_validator(mode="before")
    @classmethod
    def _goal_shorthand(cls, data: Any) -> Any:
        return {"goal": data} if isinstance(data, str) else data

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """The published schema says what the validator takes: a bare string (the goal) or the object."""
        as_object = handler(core_schema)
        goal = {"type": "string", "minLength": 1, "maxLength": MAX_TASK_CHARS, "description": "The goal in words."}
        return {"anyOf": [goal, as_object]}

    @field_validator("goal")
    @classmethod
    def _goal_words(cls, value: str) -> str:
        folded = _folded(value)
        if not folded:
            raise ValueError("the task is empty: say in words what the twin should do")
        return folded


class TaskOutcome(BaseModel):
    """Whether the page in front of the twin meets the task's criteria."""

    reached: bool | None = Field(..., description="None when the task has no success criteria.")
    checks: dict[str, bool] = Field(default_factory=dict, description="Each criterion given and whether it held.")


UNJUDGED = TaskOutcome(reached=None)


def url_matches(pattern: str, url: str | None) -> bool:
    """A substring, or with '*' a whole-address match where '*' is any run: linear time, no regular expression
    (a pattern comes from API callers)."""
    if not url:
        return False
    if "*" not in pattern:
        return pattern in url
    pieces = pattern.split("*")
    first, last, middle = pieces[0], pieces[-1], pieces[1:-1]
    if not url.startswith(first) or not url.endswith(last) or len(first) + len(last) > len(url):
        return False
    position, end = len(first), len(url) - len(last)
    for piece in middle:
        found = url.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def element_present(element: str, observation: Observation) -> bool:
    """By name (whole, or its last dotted parts), else by text an element shows (any case)."""
    if element in observation.by_name:
        return True
    suffix = "." + element
    wanted = _folded(element).lower()
    return any(c.name.endswith(suffix) or (wanted and wanted in c.text.lower()) for c in observation.candidates)


def text_present(text: str, observation: Observation, page_text: str | None = None) -> bool:
    """In the page's text (all of it when the caller has it, else the start the Observation keeps), its title or
    an element's text."""
    wanted = _folded(text).lower()
    haystacks = [
        page_text if page_text is not None else observation.text,
        observation.title,
        *(c.text for c in observation.candidates),
    ]
    return any(wanted in _folded(h).lower() for h in haystacks if h)


def judge(
    task: Task | None, observation: Observation, url: str | None = None, page_text: str | None = None
) -> TaskOutcome:
    """Has the twin reached its task on this page? `url` defaults to the observation's; `page_text`, when given,
    is the page's whole visible text (the Observation keeps its first 2,000 characters)."""
    if task is None or task.success is None:
        return UNJUDGED
    criteria = task.success
    url = url if url is not None else observation.url
    checks: dict[str, bool] = {}
    if criteria.url is not None:
        checks["url"] = url_matches(criteria.url, url)
    if criteria.element is not None:
        checks["element"] = element_present(criteria.element, observation)
    if criteria.text is not None:
        checks["text"] = text_present(criteria.text, observation, page_text)
    return TaskOutcome(reached=all(checks.values()), checks=checks)


def task_success(goal: str, reached_by_persona: Mapping[str, list[bool | None]]) -> dict:
    """Task success per persona and overall, from each twin run's reached flag (None: not judged).

    A persona may have several runs (instances); its share is over its judged runs."""
    per_persona: dict[str, dict] = {}
    judged = reached = 0
    for persona_id, runs in reached_by_persona.items():
        flags = [r for r in runs if r is not None]
        hits = sum(flags)
        per_persona[persona_id] = {
            "runs": len(runs),
            "judged": len(flags),
            "reached": hits,
            "share": round(hits / len(flags), 4) if flags else None,
        }
        judged += len(flags)
        reached += hits
    return {
        "goal": goal,
        "judged": judged,
        "reached": reached,
        "share": round(reached / judged, 4) if judged else None,
        "per_persona": per_persona,
    }
