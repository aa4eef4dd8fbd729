"""One prediction's inputs, spelled once.

Why: the API, the CLI, evaluation, experiments and live browsing all hand the agent the same things (who, which
page, what happened so far, what they came to do, which brain, how to choose). They are written out here and
nowhere else: the API's `PredictRequest` derives from `PredictionInput`, the graph's state holds it, and a brain's
`TwinContext` is derived from it (`agent.twin_context.TwinContext.of`). The persona and the page are named by
reference (an id, HTML); `ResolvedInput` is what they point to once looked up and read, which callers that read
pages in bulk (experiments, evaluation) hand over already made.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agent.brains.names import BrainName
from agent.history import Step
from agent.page.observation import EMPTY_OBSERVATION, Observation
from agent.predict_options import PredictOptions
from agent.screenshots import Screenshot
from agent.tasks import Task
from personas.persona import Persona, PersonaId

DEFAULT_BRAIN = BrainName.EMBEDDED.value


class Page(BaseModel):
    model_config = ConfigDict(extra="forbid")

    simplified_html: str | None = Field(
        None, description="OPeRA simplified HTML: interactive elements carry name= semantic ids."
    )
    html: str | None = Field(None, description="Raw HTML; simplified to the OPeRA form before the twin reads it.")
    url: str | None = Field(None, max_length=8192)

    @model_validator(mode="after")
    def _one_form(self) -> Page:
        if self.simplified_html is not None and self.html is not None:
            raise ValueError("send the page once: simplified_html or html, not both")
        return self


class PredictionInput(BaseModel):
    """Everything one prediction is given."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    persona_id: PersonaId | None = Field(None, description="Whose twin decides; none: no person (a Mind2Web step).")
    page: Page | None = Field(
        None, description="The page in front of the twin; absent or empty means page-free prediction."
    )
    history: list[Step] = Field(default_factory=list, description="Steps 1..t-1, oldest first.")
    brain: str | None = Field(None, description="The brain that decides; none: the caller's default (embedded).")
    model: str | None = Field(None, description="litellm model for brain=llm, e.g. openai/gpt-4.1-mini.")
    options: PredictOptions = Field(default_factory=PredictOptions)
    task: Task | None = Field(
        None,
        description="What the twin came to do: a goal in words (a string), or "
        "{goal, success}; both brains pursue it in this person's way.",
    )
    screenshot: Screenshot | None = Field(
        None, description="The page as a checked picture (agent/screenshots.py), for brains that look at it."
    )

    @field_validator("brain", mode="before")
    @classmethod
    def _brain_by_name(cls, brain: object) -> object:
        return brain.value if isinstance(brain, Enum) else brain  # a BrainName is known by its name

    @property
    def brain_name(self) -> str:
        return self.brain or DEFAULT_BRAIN


@dataclass(frozen=True)
class ResolvedInput:
    """What a PredictionInput's references point to: the stored persona (None: no person) and the page as read
    (EMPTY_OBSERVATION page-free), with its simplified HTML in full for the OPeRA-protocol prompt."""

    persona: Persona | None = None
    observation: Observation = EMPTY_OBSERVATION
    page_html: str | None = None


NOTHING_RESOLVED = ResolvedInput()  # no person, no page: what a page-free prediction without a persona starts from
