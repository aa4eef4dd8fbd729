"""Per-prediction switches: the paper's ablations, memory depth, and how the brain chooses."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class PredictOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ablate_persona: bool = Field(False, description="Predict without the persona (OPeRA ablation 'w/o persona').")
    ablate_rationale: bool = Field(False, description="Drop the rationales of past steps (OPeRA ablation 'w/o rationale').")
    ablate_memory: bool = Field(False, description="Skip memory recall; the persona core profile is still given.")
    memories_k: int = Field(5, ge=0, le=50, description="How many memories to recall.")
    mode: Literal["most_likely", "sample"] = Field("most_likely", description="Take the most likely action or sample one.")
    seed: int | None = Field(None, description="Seed for mode='sample'; the same seed gives the same draw.")
    max_retries: int = Field(1, ge=0, le=3, description="Grounding retries before falling back to the embedded brain.")
