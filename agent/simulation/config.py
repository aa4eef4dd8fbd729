"""What a live simulation is asked to do, validated before any browser starts."""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.allowed_hosts import HTTP_URL_PATTERN, UrlRefused, browser_url
from agent.brains.names import BrainName, KnownBrain
from agent.predict_options import GroundingStrategy, VisionPolicy
from agent.simulation.checkout_details import CheckoutDetails
from agent.tasks import Task

MAX_STEPS_LIMIT = 100


def default_concurrency() -> int:
    """Twins browsing at once unless asked: one more than the cores (at least two, at most 16). A twin waits on the
    site and the browser for part of each step, and one context more than the cores keeps them busy then: on a
    2-core machine three contexts took 6-9% less time than two, with the same traces (docs/benchmarks.md). Two per
    core made actions miss their deadline on a busy 2-core machine (benchmarks/live_speed.py), which changes
    traces."""
    return max(2, min(16, (os.cpu_count() or 1) + 1))


class SimulationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        ...,
        max_length=4096,
        description="Where every twin starts (http or https, read as a browser reads it).",
        json_schema_extra={"pattern": HTTP_URL_PATTERN},
    )
    persona_ids: list[str] = Field(..., min_length=1, max_length=500)
    max_steps: int = Field(10, ge=1, le=MAX_STEPS_LIMIT, description="Actions per twin at most.")
    brain: KnownBrain = Field(BrainName.EMBEDDED, description="embedded (default, offline), llm, or a baseline.")
    model: str | None = Field(None, description="litellm model for brain=llm.")
    seed: int = Field(0, ge=0, le=2**32 - 1, description="Same seed, same site: the same traces.")
    screenshots: bool = Field(False, description="Save a screenshot before each action (needs an output directory).")
    vision: VisionPolicy | None = Field(
        None,
        description="LLM brain: show it each step's screenshot 'auto' (when "
        "litellm says the model takes images), 'always' or 'never'; unset: "
        "TWINSIM_LLM_VISION.",
    )
    grounding: GroundingStrategy | None = Field(
        None,
        description="LLM brain: how it names elements: names, "
        "textual_choices, set_of_marks (numbered boxes on the screenshot) or "
        "both; unset: TWINSIM_LLM_GROUNDING.",
    )
    concurrency: int = Field(
        default_factory=default_concurrency,
        ge=1,
        le=16,
        description="Twins browsing at once (one browser context each); unset: one more than the cores (at least 2, "
        "at most 16).",
    )
    navigation_timeout_ms: int = Field(15_000, ge=500, le=120_000)
    action_timeout_ms: int = Field(5_000, ge=200, le=60_000)
    idle_timeout_ms: int = Field(3_000, ge=0, le=30_000)
    task: Task | None = Field(
        None,
        description="What every twin came to do; with success criteria, a twin's run "
        "ends when a page meets them, and the report says who reached it and at which step.",
    )
    checkout_details: CheckoutDetails | None = Field(
        default_factory=CheckoutDetails,
        description="Made-up TEST details a twin that goes on with its order enters "
        "into a checkout form's required fields (never the person's data; the report lists every field filled). "
        "null: forms are not filled, and twins stop at them.",
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        try:  # the judgement the browser's request guard makes, on the URL as Chromium parses it
            browser_url(url.strip())
        except UrlRefused as error:
            raise ValueError(str(error)) from None
        return url.strip()

    @field_validator("persona_ids")
    @classmethod
    def _unique(cls, ids: list[str]) -> list[str]:
        cleaned = list(dict.fromkeys(i.strip() for i in ids if i.strip()))
        if not cleaned:
            raise ValueError("name at least one persona")
        return cleaned
