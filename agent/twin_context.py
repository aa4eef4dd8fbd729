"""What a brain is given for one prediction (TwinContext), derived from the prediction's one input.

Why its own module: every brain, the LLM prompts and the decide step read it, and none of them should have to
import another brain to do so."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent.history import Step
from agent.page.observation import Observation
from agent.predict_options import GroundingStrategy, PromptStyle, VisionPolicy
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.screenshots import Screenshot
from agent.tasks import Task
from personas.memory_types import Memory
from personas.persona import Persona

DecisionMode = Literal["most_likely", "sample"]


@dataclass
class TwinContext:
    """Everything a brain may look at for one prediction."""

    persona: Persona | None  # None when the persona is ablated
    memories: list[Memory]  # recalled for this page and history (empty when ablated)
    observation: Observation  # EMPTY_OBSERVATION in page-free mode
    history: list[Step]  # steps 1..t-1; rationales stripped when ablated
    mode: DecisionMode = "most_likely"
    seed: int | None = None  # for mode="sample": same seed, same draw
    feedback: str | None = None  # why the previous proposal was rejected (grounding retry)
    model: str | None = None  # the LLM to use, for brains that take one
    task: Task | None = None  # what the person came to do, when they were given a task
    screenshot: Screenshot | None = None  # the page as a picture, for brains that look (the LLM brain, vision)
    page_html: str | None = None  # the page's simplified HTML in full (the OPeRA protocol prompt shows it)
    prompt_style: PromptStyle | None = None  # LLM brain overrides for this prediction (PredictOptions); None: its own
    grounding: GroundingStrategy | None = None
    vision: VisionPolicy | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def of(
        cls, given: PredictionInput, resolved: ResolvedInput, memories: list[Memory], feedback: str | None = None
    ) -> TwinContext:
        """What a brain sees of one prediction's input, the ablations applied: the graph and bulk runs both
        derive it here, so a brain is given the same context whichever way the prediction runs."""
        options = given.options
        history = given.history
        if options.ablate_rationale:
            history = [step.model_copy(update={"rationale": None}) for step in history]
        return cls(
            persona=None if options.ablate_persona else resolved.persona,
            memories=memories,
            observation=resolved.observation,
            history=history,
            mode=options.mode,
            seed=options.seed,
            feedback=feedback,
            model=given.model,
            task=given.task,
            screenshot=given.screenshot,
            page_html=resolved.page_html,
            prompt_style=options.prompt_style,
            grounding=options.grounding,
            vision=options.vision,
        )
