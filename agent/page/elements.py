"""What one element of a parsed page shows and takes: its label, whether it is a text field, a drop-down's choices,
the text items it shows in order.

Shared by the OPeRA-name reader (agent/page/parse.py) and the Mind2Web node reader (agent/page/node_pages.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from selectolax.lexbor import LexborNode

_NON_TEXT_INPUTS = frozenset({"checkbox", "radio", "submit", "button", "image", "reset", "file", "color", "range"})
_SPACES = re.compile(r"\s+")
_MAX_TEXT = 300
_NOT_SHOWN = frozenset({"script", "style", "noscript", "template"})


def fold(text: str | None) -> str:
    return _SPACES.sub(" ", text or "").strip()


def is_text_input(node: LexborNode) -> bool:
    """A field the person types into (text inputs, text areas, search boxes, combo boxes)."""
    tag = node.tag
    role = (node.attributes.get("role") or "").lower()
    if tag == "textarea" or (role in ("searchbox", "textbox", "combobox") and tag != "select"):
        return True
    if tag == "input":
        return (node.attributes.get("type") or "text").lower() not in _NON_TEXT_INPUTS
    return False


def element_label(node: LexborNode) -> str:
    """What the element shows (its text, else its aria-label, title, value, placeholder or alt), folded, cut."""
    text = fold(node.text(deep=True, separator=" "))
    if not text:
        attrs = node.attributes
        for key in ("aria-label", "title", "value", "placeholder", "alt"):
            if attrs.get(key):
                text = fold(attrs[key])
                break
    return text[:_MAX_TEXT]


def select_options(node: LexborNode, limit: int = 50) -> tuple[str, ...]:
    """The visible texts of a <select>'s options, in order (empty for anything else)."""
    if node.tag != "select":
        return ()
    texts = (
        fold(option.text(deep=True, separator=" ")) or fold(option.attributes.get("value"))
        for option in node.css("option")
    )
    return tuple(dict.fromkeys(t[:_MAX_TEXT] for t in texts if t))[:limit]


def text_items(root: LexborNode | None) -> Iterator[str]:
    """The texts `root` shows, one per text node, in document order (scripts, styles and templates left out)."""
    if root is None:
        return
    for node in root.traverse(include_text=True):
        if node.tag == "-text" and node.parent is not None and node.parent.tag not in _NOT_SHOWN:
            yield node.text_content or ""
