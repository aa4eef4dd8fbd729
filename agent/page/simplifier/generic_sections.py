"""The landmarks and sections the generic fallback names elements by: header, nav, main, footer ..., and cards
(a product tile, a review) named by their own heading, not by the first heading of a list of cards they hold.

Split from the walk (generic.py): deciding what a section is and what it is called is a question of its own.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page.simplifier.dom import label_of, text_of
from agent.page.simplifier.generic_vocabulary import LANDMARK_ROLES, LANDMARK_TAGS, SECTION_TAGS, SLUG_MAX
from agent.page.simplifier.slug import slugify

CARD_CLASS = re.compile(r"(?:^|[\s_-])(?:product|card|item|tile|result|offer)s?(?:$|[\s_-])", re.IGNORECASE)
CARD_HEADING = "h1, h2, h3, h4, h5, h6, legend, [itemprop=name], [class*=title], [class*=name]"


def _section_part(node: LexborNode, tree: LexborHTMLParser, cards: dict[int, bool]) -> str | None:
    """The name part a landmark or section contributes, or None when the element is not one."""
    tag = node.tag
    role = (node.attributes.get("role") or "").lower()
    default = LANDMARK_TAGS.get(tag or "") or LANDMARK_ROLES.get(role)
    if default is None and not _is_card(node, cards):
        return None
    own_label = slugify(
        label_of(node, tree) if ("aria-label" in node.attributes or "aria-labelledby" in node.attributes) else "",
        SLUG_MAX,
    )
    if default is not None:
        return own_label or default
    heading = _own_heading(node, cards)
    heading_part = slugify(text_of(heading, 120), SLUG_MAX) if heading is not None else ""
    part = heading_part or own_label or slugify(node.attributes.get("id"), SLUG_MAX)
    return part or None


def _own_heading(node: LexborNode, known: dict[int, bool]) -> LexborNode | None:
    """The heading a section is named by: the first one inside it that is not inside one of a list of cards it
    holds (two or more cards of the same tag and class: product tiles, reviews). A section that holds a list
    of products is not named after the first product; a product page that shows a few is still named by its title."""
    found: list[tuple[LexborNode, tuple[str, str] | None]] = []
    cards: dict[tuple[str, str], set[int]] = {}
    for heading in node.css(CARD_HEADING):
        if heading.mem_id == node.mem_id:
            continue
        card = _card_between(heading, node, known)
        kind = (card.tag or "", card.attributes.get("class") or "") if card is not None else None
        if card is not None and kind is not None:
            cards.setdefault(kind, set()).add(card.mem_id)
            if len(cards[kind]) > 1:
                continue  # in a list of cards: it cannot name the section
        if not text_of(heading, 120):
            continue
        if kind is None and not found:
            return heading  # the section's own heading, first in the document: nothing can come before it
        found.append((heading, kind))
    return next((heading for heading, kind in found if kind is None or len(cards[kind]) < 2), None)


def _card_between(heading: LexborNode, section: LexborNode, known: dict[int, bool]) -> LexborNode | None:
    """The closest card or section between a heading and the section it sits in, if any."""
    parent = heading.parent
    while parent is not None and parent.mem_id != section.mem_id:
        if _is_card(parent, known):
            return parent
        parent = parent.parent
    return None


def _is_card(node: LexborNode, known: dict[int, bool]) -> bool:
    """A section, an item in a microdata scope, or a div/li whose class says product, card, item ... (answers kept
    in `known` by mem_id: a heading's ancestors are asked again for every heading of every enclosing section)."""
    found = known.get(node.mem_id)
    if found is None:
        found = known[node.mem_id] = (
            node.tag in SECTION_TAGS
            or "itemscope" in node.attributes
            or (node.tag in ("div", "li") and CARD_CLASS.search(node.attributes.get("class") or "") is not None)
        )
    return found
