"""The interactive elements of the generic fallback: what counts as one (links, buttons, inputs, ARIA widgets,
onclick targets), whether a drop-down chooses what to buy, and the name part of a control with no text or label.

Split from the walk (generic.py), which claims the names and renders the controls these helpers recognise.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from selectolax.lexbor import LexborNode

from agent.page.simplifier.dom import attr, text_of
from agent.page.simplifier.generic_vocabulary import CLICKABLE_ROLES, SLUG_MAX, TYPING_ROLES
from agent.page.simplifier.slug import slugify

ADD_TO_CART = re.compile(r"\badd to (?:cart|basket|bag|trolley)\b", re.IGNORECASE)
QUANTITY = re.compile(r"quantity|\bqty\b", re.IGNORECASE)


def _is_product_choice(select: LexborNode, label: str) -> bool:
    """A drop-down that chooses what to buy: in the same form as an add-to-cart button, and not the quantity."""
    if QUANTITY.search(label) or QUANTITY.search(select.attributes.get("name") or ""):
        return False
    form = _ancestor(select, "form")
    if form is None:
        return False
    return any(ADD_TO_CART.search(text_of(b) or attr(b, "value")) for b in form.css("button, input[type=submit]"))


_HREF_NOT_A_LINK = frozenset({"link", "base", "use", "image", "pattern", "textpath", "feimage", "script"})
_CONTROLS = "a[href], button, input, select, textarea, [onclick], [role=button], [role=link]"


def _reads_as_a_link(node: LexborNode) -> bool:
    """An element with an `href` that shows something to click (text or a pictured label) and holds no control of
    its own: a carousel that carries its series' address around its products' links is a section, not one link."""
    return bool(text_of(node, 40) or node.css_first("img[alt]") is not None) and node.css_first(_CONTROLS) is None


def _is_interactive(node: LexborNode) -> bool:
    tag = node.tag
    attrs = node.attributes
    if tag == "a":
        return "href" in attrs or "onclick" in attrs or "role" in attrs
    if tag in ("button", "select", "textarea", "summary"):
        return True
    if tag == "input":
        return (attrs.get("type") or "").lower() != "hidden"
    if tag not in _HREF_NOT_A_LINK and (attrs.get("href") or "").strip() not in ("", "#") and _reads_as_a_link(node):
        return True  # an element the shop's script follows to its href (a span or div drawn as a link, a toggle)
    if tag == "img" and ADD_TO_CART.search(attrs.get("alt") or attrs.get("title") or ""):
        return True  # a buy button drawn as a picture ("Add to Cart" in its alt), its click bound by the shop's script
    role = (attrs.get("role") or "").lower()
    return (
        role in CLICKABLE_ROLES or role in TYPING_ROLES or "onclick" in attrs or attrs.get("contenteditable") == "true"
    )


def _fallback_part(node: LexborNode) -> str:
    """A name part for an element with no text or label: its href's last path segment, else its kind."""
    href = node.attributes.get("href") or ""
    if href and not href.startswith(("javascript:", "#")):
        segment = [s for s in urlparse(href).path.split("/") if s]
        if segment and (slug := slugify(segment[-1], SLUG_MAX)):
            return slug
    role = (node.attributes.get("role") or "").lower()
    return {"a": "link", "button": "button", "select": "select", "textarea": "text_area", "input": "input"}.get(
        node.tag or "", role or "control"
    )


def _ancestor(node: LexborNode, tag: str) -> LexborNode | None:
    parent = node.parent
    while parent is not None:
        if parent.tag == tag:
            return parent
        parent = parent.parent
    return None
