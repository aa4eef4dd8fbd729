"""The page in front of a twin: OPeRA simplified HTML turned into the candidates it can act on.

In OPeRA's simplified HTML (Wang et al. 2025, arXiv 2506.05606) every interactive element carries a dotted
semantic id in `name=`. Named elements that only group other named elements (`nav_bar`,
`search_results.<slug>`, `product_options.size`) are containers, not things a person clicks.
"""

from __future__ import annotations

from dataclasses import replace

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page.candidate import Candidate, CandidateKind
from agent.page.click_types import ad_reply_click_type, checkout_click_type, infer_click_type, links_a_product
from agent.page.elements import element_label, fold, is_text_input, select_options, text_items
from agent.page.fact_texts import parse_price
from agent.page.facts import read_facts
from agent.page.node_pages import (
    NODE_ID_ATTRIBUTE,
    looks_like_node_page,
    parse_node_page,
)
from agent.page.observation import Observation
from agent.page.page_types import Shown, asks_delivery_and_payment, classify_page, shows_checkout_steps
from agent.page.product_tiles import with_tiles
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits, check_page_shape

_INTERACTIVE_TAGS = frozenset({"input", "textarea", "select", "button", "a", "li", "option", "summary", "label", "img"})
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
    }
)
_PAGE_TEXT = 2000


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
    if node is not None and fold(node.text()):
        return fold(node.text())[:200]
    for candidate in candidates:
        if candidate.name.endswith(("product_title", "title")) and candidate.text:
            return candidate.text[:200]
    return ""


def _shows_a_checkout(body: LexborNode | None, candidates: list[Candidate]) -> bool:
    """A checkout's steps among the page's text, or its form asking where to deliver and how to pay."""
    if shows_checkout_steps(text_items(body)):
        return True
    fields = [f"{c.text} {c.name.rsplit('.', 1)[-1].replace('_', ' ')}" for c in candidates if c.kind == "input"]
    choices = [c.text for c in candidates if c.kind == "clickable" and c.name.startswith("form.")]
    return asks_delivery_and_payment(fields, choices)


def parse_page(
    simplified_html: str | None, url: str | None = None, limits: PageShapeLimits = DEFAULT_PAGE_LIMITS
) -> Observation:
    """Parse OPeRA simplified HTML. Broken HTML still parses; None or "" gives a page with no candidates.
    A page beyond `limits` (depth, elements) raises PageTooComplex before it is parsed. A page whose elements
    carry their own ids instead of OPeRA names (Mind2Web's cleaned_html) is read by agent/page/node_pages.py."""
    if simplified_html and NODE_ID_ATTRIBUTE in simplified_html and looks_like_node_page(simplified_html):
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
            if click_type == "other" and links_a_product(name, node.tag, node.attributes.get("role"), text):
                click_type = "product_link"
        candidate = Candidate(
            name=name,
            kind=kind,
            tag=node.tag or "",
            text=text,
            click_type=click_type,
            position=len(candidates),
            price=parse_price(text) if "$" in text else None,
            options=select_options(node),
            role=(node.attributes.get("role") or None),
            input_type=(node.attributes.get("type") or "").lower() if kind == "input" else "",
        )
        candidates.append(candidate)
        by_name[name] = candidate
    body = tree.body
    page_text = fold(body.text(deep=True, separator=" ")) if body is not None else ""
    meta = tree.css_first(".product-meta")  # what the raw page declared (agent/page/structured_data.py)
    declared = meta.attributes.get("data-page-type") if meta is not None else None
    title = _title(tree, candidates)
    page_type = classify_page(url, list(by_name), declared, title=title)
    if page_type == "other" and _shows_a_checkout(body, candidates):  # its steps or its questions say so
        page_type = classify_page(url, list(by_name), declared, Shown(checkout=True), title)
    retype = None
    if page_type == "checkout":  # Continue, Next, Pay: the checkout's own steps towards the order are purchase clicks
        retype = checkout_click_type
    elif not any(c.click_type == "purchase" for c in candidates):  # a classified ad: replying to the seller takes it
        retype = ad_reply_click_type
    if retype is not None:
        candidates = [
            replace(c, click_type=retype(c.name, c.click_type)) if c.kind == "clickable" else c for c in candidates
        ]
        by_name = {c.name: c for c in candidates}
    facts = read_facts(tree, named, by_name, page_type, title, url)  # last: it removes the blocks it has read
    if page_type == "other":  # nothing but what the page shows says what it is
        shown = Shown(facts.focus is not None, sum(p.price is not None for p in facts.alternatives()))
        page_type = classify_page(url, list(by_name), declared, shown, title)
    if page_type == "product":  # the products its tiles recommend: what its own price is held against
        facts = with_tiles(facts, candidates)
    return Observation(
        url=url,
        page_type=page_type,
        title=title,
        candidates=tuple(candidates),
        by_name=by_name,
        text=page_text[:_PAGE_TEXT],
        facts=facts,
    )
