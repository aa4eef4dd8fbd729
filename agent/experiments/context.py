"""What an experiment may use in this process, handed in by whoever runs it (the API, the CLI, the demo).

Experiments are planned and run here in `agent/`, so the brains come in from outside: the twin graph is the
one `/predict` serves, and its embedded brain (with the parameters the service was started with) is the one
the experiment's bulk runs use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from agent.allowed_hosts import HostAllowList
from agent.graph import TwinGraph
from agent.llm.client import LLMClient
from agent.memory_recall import MemorySource
from agent.page.read_page import DEFAULT_MAX_PAGE_BYTES
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits
from personas.embedder import Embedder
from personas.persona import Persona


class PersonaSource(MemorySource, Protocol):
    """The persona store as experiments use it: the pool, each person's memories, and the embedder themes use."""

    @property
    def embedder(self) -> Embedder: ...

    def persona_ids(self) -> list[str]: ...

    def get_persona(self, persona_id: str) -> Persona: ...


@dataclass(frozen=True)
class ExperimentContext:
    graph: TwinGraph  # the brains available, the embedded one included
    store: PersonaSource
    llm: LLMClient | None = None  # the provider client, for the one probe call before an LLM run
    default_model: str | None = None  # brain 'llm' without a model in the spec
    llm_graph: Callable[[int], TwinGraph] | None = None  # a graph making at most N LLM calls at once (the spec's)
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES
    page_limits: PageShapeLimits = DEFAULT_PAGE_LIMITS
    allowed_hosts: HostAllowList | None = None
    executor: Literal["inprocess", "ray"] = "inprocess"  # where embedded-brain units run
    ray_address: str | None = None
