"""What flows through the twin's graph for one prediction: the input as given, what it resolved to, and what the
nodes add (memories, then the decide step's outcome)."""

from __future__ import annotations

from typing import TypedDict

from agent.decide_step import Grounded
from agent.prediction_input import PredictionInput, ResolvedInput
from personas.memory_types import Memory


class TwinState(TypedDict, total=False):
    input: PredictionInput
    resolved: ResolvedInput
    memories: list[Memory]
    no_memories: bool  # a recall was made and the person has none stored
    grounded: Grounded  # the decide step's outcome
