"""One element of a page a twin may click or type into: its name, kind, text and OPeRA click type.

Every reader of a page (OPeRA simplified HTML, raw HTML through the simplifier, Mind2Web's cleaned pages, live
pages) makes the same Candidate, so brains, grounding and reports never ask where a page came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CandidateKind = Literal["clickable", "input"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One element with a `name=` the twin may click or type into."""

    name: str  # the semantic id, e.g. "search_results.usb_c_cable.product_name"
    kind: CandidateKind  # "input" for text fields / text areas / search boxes, else "clickable"
    tag: str  # lower-case tag name
    text: str  # visible text (or aria-label / title / value / placeholder / alt), folded, <= 300 chars
    click_type: str  # one of agent.page.click_types.CLICK_TYPES ("other" when unsure)
    position: int  # 0-based document order among the candidates
    price: float | None = None  # a price ($12.99) in the element's text, when there is one
    options: tuple[str, ...] = ()  # a drop-down's choices (<select>): choosing one is an input of its text
    node_id: str | None = None  # the page's own stable id of the element (Mind2Web's backend_node_id), if any
    role: str | None = None  # ARIA role, else the tag's implicit one when known
    bbox: tuple[float, float, float, float] | None = None  # x, y, width, height in page pixels, where known
    input_type: str = ""  # a text box's type (text, search, email, password, number ...); "" when it has none

    @property
    def takes_text(self) -> bool:
        """A text field, or a drop-down whose option is chosen by its text."""
        return self.kind == "input" or (self.tag == "select" and bool(self.options))
