"""Every brain by name, built once per process with what it needs (the LLM client, the embedded parameters)."""

from __future__ import annotations

from pathlib import Path

from agent.brains.base import Brain
from agent.brains.baselines import MajorityBrain, RepeatPreviousBrain
from agent.brains.embedded import EmbeddedBrain
from agent.brains.llm import LLMBrain
from agent.llm.client import LLMClient


def build_brains(llm: LLMClient, *, behaviour_params: Path | None = None,
                 default_model: str | None = None) -> dict[str, Brain]:
    brains: list[Brain] = [EmbeddedBrain(behaviour_params), LLMBrain(llm, default_model=default_model),
                           RepeatPreviousBrain(), MajorityBrain()]
    return {brain.name: brain for brain in brains}
