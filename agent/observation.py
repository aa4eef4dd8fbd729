"""The page in front of a twin: OPeRA simplified HTML turned into the candidates it can act on.

In OPeRA's simplified HTML (Wang et al. 2025, arXiv 2506.05606) every interactive element carries a dotted
semantic id in `name=`. Named elements that only group other named elements (`nav_bar`,
`search_results.<slug>`, `product_options.size`) are containers, not things a person clicks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.click_types import checkout_click_type, infer_click_type
from agent.fact_texts import parse_price
from agent.page_facts import NO_FACTS, PageFacts, read_facts
from agent.page_shape import DEFAULT_PAGE_LIMITS, PageShapeLimits, check_page_shape
from agent.page_types import PageType, page_type, shown_page_type, url_page_type

CandidateKind = Literal["clickable", "input"]

_INTERACTIVE_TAGS = frozenset({"input", "textarea", "select", "button", "a", "li", "option", "summary", "label", "img"})
_INTERACTIVE_ROLES = frozenset({"button", "link", "radio", "checkbox", "searchbox", "option", "tab", "menuitem",
                                "combobox", "textbox", "switch", "menuitemradio", "menuitemcheckbox"})
_NON_TEXT_INPUTS = frozenset({"checkbox", "radio", "submit", "button", "image", "reset", "file", "color", "range"})
_SPACES = re.compile(r"\s+")
_MAX_TEXT = 300
_PAGE_TEXT = 2000
NODE_ID_ATTRIBUTE = "backend_node_id"  # Mind2Web's id for every element of its cleaned_html


@dataclass(frozen=True, slots=True)
class Candidate:
    """One element with a `name=` the twin may click or type into."""

    name: str                 # the semantic id, e.g. "search_results.usb_c_cable.product_name"
    kind: CandidateKind       # "input" for text fields / text areas / search boxes, else "clickable"
    tag: str                  # lower-case tag name
    text: str                 # visible text (or aria-label / title / value / placeholder / alt), folded, <= 300 chars
    click_type: str           # one of agent.click_types.CLICK_TYPES ("other" when unsure)
    position: int             # 0-based document order among the candidates
    price: float | None = None  # a price ($12.99) in the element's text, when there is one
    options: tuple[str, ...] = ()  # a drop-down's choices (<select>): choosing one is an input of its text
    node_id: str | None = None     # the page's own stable id of the element (Mind2Web's backend_node_id), if any
    role: str | None = None        # ARIA role, else the tag's implicit one when known
    bbox: tuple[float, float, float, float] | None = None  # x, y, width, height in page pixels, where known
    input_type: str = ""      # a text box's type (text, search, email, password, number ...); "" when it has none

    @property
    def takes_text(self) -> bool:
        """A text field, or a drop-down whose option is chosen by its text."""
        return self.kind == "input" or (self.tag == "select" and bool(self.options))


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


def _fold(text: str | None) -> str:
    return _SPACES.sub(" ", text or "").strip()


def is_text_input(node: LexborNode) -> bool:
    """A field the person types into (text inputs, text areas, search boxes, combo boxes)."""
    tag = node.tag
    role = (node.attributes.get("role") or "").lower()
    if tag == "textarea" or role in ("searchbox", "textbox", "combobox") and tag != "select":
        return True
    if tag == "input":
        return (node.attributes.get("type") or "text").lower() not in _NON_TEXT_INPUTS
    return False


def element_label(node: LexborNode) -> str:
    """What the element shows (its text, else its aria-label, title, value, placeholder or alt), folded, cut."""
    text = _fold(node.text(deep=True, separator=" "))
    if not text:
        attrs = node.attributes
        for key in ("aria-label", "title", "value", "placeholder", "alt"):
            if attrs.get(key):
                text = _fold(attrs[key])
                break
    return text[:_MAX_TEXT]


def select_options(node: LexborNode, limit: int = 50) -> tuple[str, ...]:
    """The visible texts of a <select>'s options, in order (empty for anything else)."""
    if node.tag != "select":
        return ()
    texts = (_fold(option.text(deep=True, separator=" ")) or _fold(option.attributes.get("value"))
             for option in node.css("option"))
    return tuple(dict.fromkeys(t[:_MAX_TEXT] for t in texts if t))[:limit]


def _containers(named: list[LexborNode]) -> set[int]:
    """Ids of named elements that hold another named element (one walk up from each named element)."""
    containers: set[int] = set()
    for node in named:
        parent = node.parent
        while parent is not None:
            if parent.attributes.get("name") is not None:
                containers.add(parent.mem_id)
                break
            parent = parent.parent
    return containers


def _is_candidate(node: LexborNode, containers: set[int]) -> bool:
    """Interactive tags and roles always; other named elements only when they group no named element."""
    if node.tag == "input" and (node.attributes.get("type") or "").lower() == "hidden":
        return False
    if node.tag in _INTERACTIVE_TAGS or (node.attributes.get("role") or "").lower() in _INTERACTIVE_ROLES:
        return True
    return node.mem_id not in containers


def _title(tree: LexborHTMLParser, candidates: list[Candidate]) -> str:
    node = tree.css_first("title") or tree.css_first("#productTitle") or tree.css_first("h1")
    if node is not None and _fold(node.text()):
        return _fold(node.text())[:200]
    for candidate in candidates:
        if candidate.name.endswith(("product_title", "title")) and candidate.text:
            return candidate.text[:200]
    return ""


def parse_page(simplified_html: str | None, url: str | None = None,
               limits: PageShapeLimits = DEFAULT_PAGE_LIMITS) -> Observation:
    """Parse OPeRA simplified HTML. Broken HTML still parses; None or "" gives a page with no candidates.
    A page beyond `limits` (depth, elements) raises PageTooComplex before it is parsed. A page whose elements
    carry their own ids instead of OPeRA names (Mind2Web's cleaned_html) is read by agent/node_pages.py."""
    if simplified_html and NODE_ID_ATTRIBUTE in simplified_html:
        from agent.node_pages import looks_like_node_page, parse_node_page

        if looks_like_node_page(simplified_html):
            return parse_node_page(simplified_html, url=url, limits=limits)
    check_page_shape(simplified_html, limits)
    if not simplified_html or not simplified_html.strip():
        return Observation(url=url, page_type="none", title="", candidates=(), by_name={}, text="")
    tree = LexborHTMLParser(simplified_html)
    for node in tree.css("script, style, noscript"):
        node.decompose()
    candidates: list[Candidate] = []
    by_name: dict[str, Candidate] = {}
    named = tree.css("[name]")
    containers = _containers(named)
    for node in named:
        name = (node.attributes.get("name") or "").strip()
        if not name or name in by_name or not _is_candidate(node, containers):
            continue
        text = element_label(node)
        kind: CandidateKind = "input" if is_text_input(node) else "clickable"
        if kind == "input":
            click_type = "search" if "search" in name.lower() else "other"
        else:
            click_type = infer_click_type(name, node.tag, text)
        candidate = Candidate(name=name, kind=kind, tag=node.tag, text=text, click_type=click_type,
                              position=len(candidates), price=parse_price(text) if "$" in text else None,
                              options=select_options(node), role=(node.attributes.get("role") or None),
                              input_type=(node.attributes.get("type") or "").lower() if kind == "input" else "")
        candidates.append(candidate)
        by_name[name] = candidate
    body = tree.body
    page_text = _fold(body.text(deep=True, separator=" ")) if body is not None else ""
    kind = page_type(url, list(by_name))
    if kind == "other":  # not Amazon's: the shop-neutral words of the URL, then what the page shows
        kind = url_page_type(url)
    if kind == "checkout":  # Continue, Next, Pay: the checkout's own steps towards the order are purchase clicks
        candidates = [replace(c, click_type=checkout_click_type(c.name, c.click_type)) if c.kind == "clickable" else c
                      for c in candidates]
        by_name = {c.name: c for c in candidates}
    title = _title(tree, candidates)
    facts = read_facts(tree, named, by_name, kind, title)  # last: it removes the blocks it has read
    if kind == "other":
        kind = shown_page_type(facts.focus is not None, sum(p.price is not None for p in facts.alternatives()))
    return Observation(
        url=url,
        page_type=kind,
        title=title,
        candidates=tuple(candidates),
        by_name=by_name,
        text=page_text[:_PAGE_TEXT],
        facts=facts,
    )
