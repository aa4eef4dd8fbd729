"""Pages whose elements carry the page's own ids instead of OPeRA names: Mind2Web's cleaned_html.

Mind2Web (Deng et al. 2023, NeurIPS) and Multimodal-Mind2Web (Zheng et al. 2024, "GPT-4V(ision) is a Generalist
Web Agent, if Grounded", arXiv 2401.01614) give every element of a cleaned page a `backend_node_id`, and list a
step's candidate elements by that id with their tag and attributes (a JSON object that often holds
`bounding_box_rect` as "x,y,width,height"). Each candidate becomes a twin's Candidate: a stable id (`node_id`),
a readable unique name (`<slug of its text>_<id>`, so a model can copy it and a person can read a history), its
role, text, options and bounding box. Without a candidate list, the interactive elements are the candidates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.json_object_cell import json_object
from agent.page.candidate import Candidate, CandidateKind
from agent.page.click_types import infer_click_type
from agent.page.elements import element_label, is_text_input, select_options
from agent.page.fact_texts import parse_price
from agent.page.observation import Observation
from agent.page.page_types import page_type
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits, check_page_shape
from agent.page.simplifier.slug import slugify

NODE_ID_ATTRIBUTE = "backend_node_id"  # Mind2Web's id for every element of its cleaned_html
_NODE_PAGE = re.compile(r"<[a-zA-Z][^>]*\sbackend_node_id\s*=", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_INTERACTIVE_TAGS = frozenset({"a", "button", "input", "select", "textarea", "option", "summary", "label"})
_INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "link",
        "radio",
        "checkbox",
        "searchbox",
        "option",
        "tab",
        "menuitem",
        "combobox",
        "textbox",
        "switch",
        "menuitemradio",
        "menuitemcheckbox",
        "slider",
    }
)
_IMPLICIT_ROLES = {
    "a": "link",
    "button": "button",
    "select": "combobox",
    "textarea": "textbox",
    "option": "option",
    "summary": "button",
    "img": "img",
    "li": "listitem",
    "label": "label",
    "h1": "heading",
    "h2": "heading",
    "h3": "heading",
}
_INPUT_ROLES = {
    "checkbox": "checkbox",
    "radio": "radio",
    "submit": "button",
    "button": "button",
    "reset": "button",
    "image": "button",
    "search": "searchbox",
    "range": "slider",
}
_TEXT_KEYS = ("aria_label", "aria-label", "title", "value", "placeholder", "alt", "name", "text")
SLUG_CHARS = 30
_PAGE_TEXT = 2000
_MAX_TEXT = 300


@dataclass(frozen=True)
class NodeCandidate:
    """A candidate element as a benchmark row lists it: its id, tag and attributes."""

    node_id: str
    tag: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)


def looks_like_node_page(html: str) -> bool:
    """Elements carry `backend_node_id` attributes (Mind2Web's cleaned_html)."""
    return bool(_NODE_PAGE.search(html[:200_000]))


def parse_bbox(value: object) -> tuple[float, float, float, float] | None:
    """'x,y,width,height' (Mind2Web's bounding_box_rect) as four floats; None when absent or malformed."""
    if not isinstance(value, str):
        return None
    parts = value.split(",")
    if len(parts) != 4:
        return None
    try:
        x, y, width, height = (float(p) for p in parts)
    except ValueError:
        return None
    box = (x, y, width, height)
    return box if all(v == v and abs(v) != float("inf") for v in box) else None


def _fold(text: str | None) -> str:
    return _SPACES.sub(" ", text or "").strip()


def _role(tag: str, attributes: Mapping[str, str]) -> str | None:
    explicit = (attributes.get("role") or "").strip().lower()
    if explicit:
        return explicit
    if tag == "input":
        kind = (attributes.get("type") or "text").lower()
        return _INPUT_ROLES.get(kind, "textbox")
    return _IMPLICIT_ROLES.get(tag)


def _text_from_attributes(attributes: Mapping[str, str]) -> str:
    for key in _TEXT_KEYS:
        value = attributes.get(key)
        if isinstance(value, str) and _fold(value):
            return _fold(value)[:_MAX_TEXT]
    return ""


def _is_interactive(node: LexborNode) -> bool:
    attributes = node.attributes
    if node.tag == "input" and (attributes.get("type") or "").lower() == "hidden":
        return False
    return (
        node.tag in _INTERACTIVE_TAGS
        or (attributes.get("role") or "").lower() in _INTERACTIVE_ROLES
        or "onclick" in attributes
    )


def candidate_name(text: str, tag: str, node_id: str) -> str:
    """Readable and unique on the page: the slug of what the element shows (else its tag), then its id."""
    return f"{slugify(text, SLUG_CHARS) or tag or 'element'}_{node_id}"


def _candidate(node: LexborNode | None, listed: NodeCandidate, position: int) -> Candidate:
    attributes = {k: v for k, v in (node.attributes.items() if node is not None else ()) if isinstance(v, str)}
    attributes.update({k: v for k, v in listed.attributes.items() if isinstance(v, str)})
    tag = (node.tag if node is not None else None) or (listed.tag or "element").lower()
    if tag == "select":  # named by its label, not by the run of its options' texts
        text = _text_from_attributes(attributes) or (element_label(node) if node is not None else "")
    else:
        text = (element_label(node) if node is not None else "") or _text_from_attributes(attributes)
    typed = (
        is_text_input(node)
        if node is not None
        else tag in ("textarea",)
        or (
            tag == "input"
            and (attributes.get("type") or "text").lower() in ("text", "search", "email", "tel", "url", "")
        )
    )
    kind: CandidateKind = "input" if typed else "clickable"
    base = slugify(text, SLUG_CHARS) or tag
    click_type = ("search" if "search" in base else "other") if kind == "input" else infer_click_type(base, tag, text)
    return Candidate(
        name=candidate_name(text, tag, listed.node_id),
        kind=kind,
        tag=tag,
        text=text,
        click_type=click_type,
        position=position,
        price=parse_price(text) if "$" in text else None,
        options=select_options(node) if node is not None else (),
        node_id=listed.node_id,
        role=_role(tag, attributes),
        bbox=parse_bbox(attributes.get("bounding_box_rect")),
    )


def parse_node_page(
    html: str,
    url: str | None = None,
    candidates: Sequence[NodeCandidate] | None = None,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
) -> Observation:
    """The page as a twin reads it. With `candidates` (a benchmark row's), exactly those, in the page's document
    order (ones the page does not hold follow, in the list's order); without, every interactive element that has
    an id. A page beyond `limits` raises PageTooComplex before it is parsed."""
    check_page_shape(html, limits)
    tree = LexborHTMLParser(html or "")
    for node in tree.css("script, style, noscript"):
        node.decompose()
    nodes: dict[str, LexborNode] = {}
    order: dict[str, int] = {}
    for node in tree.css(f"[{NODE_ID_ATTRIBUTE}]"):
        node_id = (node.attributes.get(NODE_ID_ATTRIBUTE) or "").strip()
        if node_id and node_id not in nodes:
            nodes[node_id] = node
            order[node_id] = len(order)
    if candidates is None:
        listed = [NodeCandidate(node_id) for node_id, node in nodes.items() if _is_interactive(node)]
    else:
        unique = list({c.node_id: c for c in candidates if c.node_id}.values())
        listed = sorted(unique, key=lambda c: (c.node_id not in order, order.get(c.node_id, 0)))
    built = [_candidate(nodes.get(item.node_id), item, i) for i, item in enumerate(listed)]
    by_name = {c.name: c for c in built}
    body = tree.body
    page_text = _fold(body.text(deep=True, separator=" ")) if body is not None else ""
    title_node = tree.css_first("title") or tree.css_first("h1")
    title = _fold(title_node.text()) if title_node is not None else ""
    return Observation(
        url=url,
        page_type=page_type(url, list(by_name)),
        title=title[:200],
        candidates=tuple(built),
        by_name=by_name,
        text=page_text[:_PAGE_TEXT],
    )


def node_candidates(raw: Sequence[object]) -> list[NodeCandidate]:
    """A row's candidate list, each a dict or a JSON string, its `attributes` a dict or a JSON string.
    Raises ValueError naming what is wrong."""
    out: list[NodeCandidate] = []
    for index, item in enumerate(raw):
        item = json_object(item, f"candidate {index}")
        attributes = json_object(
            item.get("attributes") or {}, f"candidate {index}: attributes", verb="are", blank_is_empty=True
        )
        node_id = item.get("backend_node_id") or attributes.get("backend_node_id")
        if node_id is None or not str(node_id).strip():
            raise ValueError(f"candidate {index} has no backend_node_id")
        out.append(
            NodeCandidate(
                str(node_id).strip(),
                str(item["tag"]) if item.get("tag") else None,
                {str(k): v for k, v in attributes.items() if isinstance(v, str)},
            )
        )
    return out
