"""A page as a twin sees it: its address, type, title, the candidates it can act on and the facts it weighs."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.page.candidate import Candidate
from agent.page.facts_model import NO_FACTS, PageFacts
from agent.page.page_types import PageType


@dataclass(frozen=True, slots=True)
class Observation:
    """A parsed page. `candidates` is in document order; `by_name` indexes it."""

    url: str | None
    page_type: PageType
    title: str
    candidates: tuple[Candidate, ...]
    by_name: dict[str, Candidate] = field(repr=False)
    text: str = field(default="", repr=False)  # visible page text, folded, first ~2,000 chars
    facts: PageFacts = field(default=NO_FACTS, repr=False)  # products in view and their prices, stars, stock ...

    @property
    def empty(self) -> bool:
        return not self.candidates


EMPTY_OBSERVATION = Observation(url=None, page_type="none", title="", candidates=(), by_name={}, text="")
