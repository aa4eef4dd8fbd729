"""What a brain is given for one prediction (TwinContext), derived from the prediction's one input.

Why derived, not spelled: the input (`PredictionInput`) and what it resolved to (`ResolvedInput`) already say
everything a brain may look at; the context holds them with the memories recalled and a rejected proposal's
feedback, and reads the rest through them, the ablations applied. A new input is then added in one place, and
a brain is given the same context whichever way the prediction runs (the graph, bulk experiment units).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from agent.history import Step
from agent.page.observation import EMPTY_OBSERVATION, Observation
from agent.predict_options import GroundingStrategy, PromptStyle, VisionPolicy
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.screenshots import Screenshot
from agent.tasks import Task
from personas.memory_types import Memory
from personas.persona import Persona

DecisionMode = Literal["most_likely", "sample"]


@dataclass(frozen=True)
class TwinContext:
    """Everything a brain may look at for one prediction."""

    input: PredictionInput  # as given: history, task, screenshot, model, options
    resolved: ResolvedInput  # the persona and the page it names, looked up and read
    memories: list[Memory] = field(default_factory=list)  # recalled for this page and history (empty when ablated)
    feedback: str | None = None  # why the previous proposal was rejected (grounding retry)
    extra: dict = field(default_factory=dict)  # live signals a caller may add (agent/behaviour/engine.py)

    @classmethod
    def of(
        cls, given: PredictionInput, resolved: ResolvedInput, memories: list[Memory], feedback: str | None = None
    ) -> TwinContext:
        """What a brain sees of one prediction's input: the graph and bulk runs both derive it here."""
        return cls(input=given, resolved=resolved, memories=memories, feedback=feedback)

    @classmethod
    def on_page(
        cls,
        persona: Persona | None,
        observation: Observation = EMPTY_OBSERVATION,
        given: PredictionInput | None = None,
        *,
        memories: Sequence[Memory] = (),
        page_html: str | None = None,
    ) -> TwinContext:
        """A persona on a page already read, the rest of the input as `given`: for callers that hold the
        person and the page themselves (tests, benchmarks, the cost estimate), with no store or page reader."""
        resolved = ResolvedInput(persona=persona, observation=observation, page_html=page_html)
        return cls.of(given or PredictionInput(), resolved, list(memories))

    @property
    def persona(self) -> Persona | None:
        """None when the persona is ablated."""
        return None if self.input.options.ablate_persona else self.resolved.persona

    @property
    def observation(self) -> Observation:
        """EMPTY_OBSERVATION in page-free mode."""
        return self.resolved.observation

    @cached_property
    def history(self) -> list[Step]:
        """Steps 1..t-1; rationales stripped when ablated."""
        if self.input.options.ablate_rationale:
            return [step.model_copy(update={"rationale": None}) for step in self.input.history]
        return self.input.history

    @property
    def mode(self) -> DecisionMode:
        return self.input.options.mode

    @property
    def seed(self) -> int | None:
        """For mode="sample": same seed, same draw."""
        return self.input.options.seed

    @property
    def model(self) -> str | None:
        """The LLM to use, for brains that take one."""
        return self.input.model

    @property
    def task(self) -> Task | None:
        return self.input.task

    @property
    def screenshot(self) -> Screenshot | None:
        """The page as a picture, for brains that look (the LLM brain, vision)."""
        return self.input.screenshot

    @property
    def page_html(self) -> str | None:
        """The page's simplified HTML in full (the OPeRA protocol prompt shows it)."""
        return self.resolved.page_html

    @property
    def prompt_style(self) -> PromptStyle | None:
        """LLM brain overrides for this prediction (PredictOptions); None: its own setting."""
        return self.input.options.prompt_style

    @property
    def grounding(self) -> GroundingStrategy | None:
        return self.input.options.grounding

    @property
    def vision(self) -> VisionPolicy | None:
        return self.input.options.vision
