"""The one recall: which memories a prediction is given, with the checks that say when it is given none.

Why: the graph's recall node, an evaluation recalling ahead for its Ray workers, and an experiment recalling once
per persona and page for its bulk units all ask here, so an ablation, a brain whose prompt shows no memories, or
a store-less run recalls nothing in every one of them alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Protocol

from agent.brains.base import Brain
from agent.history import Step
from agent.page.observation import Observation
from agent.predict_options import PredictOptions
from agent.recall_query import recall_query
from agent.tasks import Task
from personas.memory_types import Memory
from personas.persona import Persona

NO_MEMORIES = "none stored for this person: the twin decided from its profile alone"


class MemorySource(Protocol):
    """Where a twin's memories come from (the persona store, or a fixed list in tests)."""

    def recall(self, persona_id: str, query: str, k: int = 5) -> list[Memory]: ...


class RecallRequest(NamedTuple):
    """What one prediction asks memory for; hashable, so recalls can be made ahead and shared."""

    persona_id: str
    query: str
    k: int


class Recall:
    """Recalls from `memory` (None: nothing is recalled) for predictions made by `brains`."""

    def __init__(self, memory: MemorySource | None, brains: Mapping[str, Brain]) -> None:
        self.memory = memory
        self._brains = brains

    def wants_memories(self, persona: Persona | None, options: PredictOptions, brain: str | None = None) -> bool:
        """Not without a persona or a store, not when ablated, and not for a brain whose prompt shows no
        memories (the LLM brain under the OPeRA protocol)."""
        if (
            persona is None
            or options.ablate_persona
            or options.ablate_memory
            or self.memory is None
            or options.memories_k == 0
        ):
            return False
        reads = getattr(self._brains.get(brain), "reads_memories", None) if brain is not None else None
        return reads is None or reads(options)

    def request(
        self,
        persona: Persona | None,
        observation: Observation,
        history: list[Step],
        options: PredictOptions,
        task: Task | None = None,
        brain: str | None = None,
    ) -> RecallRequest | None:
        """The recall this prediction makes, or None when it recalls nothing."""
        if persona is None or not self.wants_memories(persona, options, brain):
            return None
        return RecallRequest(persona.id, recall_query(observation, history, task), options.memories_k)

    def __call__(self, request: RecallRequest) -> list[Memory]:
        if self.memory is None:
            raise RuntimeError("no memory store to recall from")
        return self.memory.recall(request.persona_id, request.query, request.k)
