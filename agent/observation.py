"""The page in front of a twin: OPeRA simplified HTML turned into the candidates it can act on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

CandidateKind = Literal["clickable", "input"]
PageType = Literal["search_results", "product", "cart", "checkout", "home", "other", "none"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One element with a `name=` the twin may click or type into."""

    name: str                 # the semantic id, e.g. "search_results.usb_c_cable.product_name"
    kind: CandidateKind       # "input" for text fields / text areas / search boxes, else "clickable"
    tag: str                  # lower-case tag name
    text: str                 # visible text (or aria-label / title / value / placeholder), whitespace folded, <= 300 chars
    click_type: str           # one of agent.click_types.CLICK_TYPES ("other" when unsure); for inputs: "search" or "other"
    position: int             # 0-based document order among the candidates
    price: float | None = None  # a price ($12.99) found in the element's text, when there is one


@dataclass(frozen=True, slots=True)
class Observation:
    """A parsed page. `candidates` is in document order; `by_name` indexes it."""

    url: str | None
    page_type: PageType
    title: str
    candidates: tuple[Candidate, ...]
    by_name: dict[str, Candidate] = field(repr=False)
    text: str = field(default="", repr=False)  # visible page text, folded, first ~2,000 chars (for prompts and intent)

    @property
    def empty(self) -> bool:
        return not self.candidates


EMPTY_OBSERVATION = Observation(url=None, page_type="none", title="", candidates=(), by_name={}, text="")


def parse_page(simplified_html: str | None, url: str | None = None) -> Observation:
    """Parse OPeRA simplified HTML. Broken HTML still parses; None or "" gives a page with no candidates."""
    raise NotImplementedError  # filled in by the observation work
