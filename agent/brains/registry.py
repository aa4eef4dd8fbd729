"""Every brain by name, built once per process with what it needs (the LLM client, the embedded parameters)."""

from __future__ import annotations

from pathlib import Path

from agent.brains.base import Brain
from agent.brains.baselines import MajorityBrain, RepeatPreviousBrain
from agent.brains.embedded import EmbeddedBrain
from agent.brains.llm import LLMBrain
from agent.llm.answer_schema import StructuredOutput
from agent.llm.client import LLMClient
from agent.predict_options import GroundingStrategy, PromptStyle, VisionPolicy


def build_brains(
    llm: LLMClient,
    *,
    behaviour_params: Path | None = None,
    default_model: str | None = None,
    prompt_style: PromptStyle = "twinsim",
    grounding: GroundingStrategy = "names",
    vision: VisionPolicy = "auto",
    structured_output: StructuredOutput = "auto",
    context_tokens: int | None = None,
) -> dict[str, Brain]:
    brains: list[Brain] = [
        EmbeddedBrain(behaviour_params),
        LLMBrain(
            llm,
            default_model=default_model,
            prompt_style=prompt_style,
            grounding=grounding,
            vision=vision,
            structured_output=structured_output,
            context_tokens=context_tokens,
        ),
        RepeatPreviousBrain(),
        MajorityBrain(),
    ]
    return {brain.name: brain for brain in brains}
