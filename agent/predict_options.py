"""Per-prediction switches: the paper's ablations, memory depth, and how the brain chooses."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PromptStyle = Literal["twinsim", "opera_protocol", "opera_protocol_rationale"]
PROMPT_STYLES: tuple[str, ...] = ("twinsim", "opera_protocol", "opera_protocol_rationale")
GroundingStrategy = Literal["names", "textual_choices", "set_of_marks", "both"]
GROUNDING_STRATEGIES: tuple[str, ...] = ("names", "textual_choices", "set_of_marks", "both")
VisionPolicy = Literal["auto", "always", "never"]
VISION_POLICIES: tuple[str, ...] = ("auto", "always", "never")


class PredictOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ablate_persona: bool = Field(
        False, strict=True, description="Predict without the persona (OPeRA ablation 'w/o persona')."
    )
    ablate_rationale: bool = Field(
        False, strict=True, description="Drop the rationales of past steps (OPeRA ablation 'w/o rationale')."
    )
    ablate_memory: bool = Field(
        False, strict=True, description="Skip memory recall; the persona core profile is still given."
    )
    memories_k: int = Field(5, ge=0, le=50, strict=True, description="How many memories to recall.")
    mode: Literal["most_likely", "sample"] = Field(
        "most_likely", description="Take the most likely action or sample one."
    )
    seed: int | None = Field(  # non-negative, as numpy's generators take it (and as an experiment's seed is)
        None,
        ge=0,
        le=2**63 - 1,
        strict=True,
        description="Seed for mode='sample'; the same seed gives the same draw.",
    )
    max_retries: int = Field(
        1, ge=0, le=3, strict=True, description="Grounding retries before falling back to the embedded brain."
    )
    prompt_style: PromptStyle | None = Field(
        None,
        description="LLM brain: 'twinsim' (profile, memories, page facts and elements) or the OPeRA paper's "
        "protocol, 'opera_protocol' (next action only) or 'opera_protocol_rationale' (rationale and action): persona, "
        "history and the page's full simplified HTML, no memories. Unset: the brain's setting "
        "(TWINSIM_LLM_PROMPT_STYLE).",
    )
    grounding: GroundingStrategy | None = Field(
        None,
        description="LLM brain: how it names the element: 'names' (copies the element's name), 'textual_choices' "
        "(numbered list), 'set_of_marks' (numbered boxes on the screenshot) or 'both' (SeeAct, arXiv 2401.01614). "
        "Unset: the brain's setting (TWINSIM_LLM_GROUNDING).",
    )
    vision: VisionPolicy | None = Field(
        None,
        description="LLM brain: send the screenshot 'auto' (when litellm says the model takes images), "
        "'always' or 'never'. Unset: the brain's setting (TWINSIM_LLM_VISION).",
    )
