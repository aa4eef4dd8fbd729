"""Reading raw HTML: parse, drop what a shopper cannot see, and fold text and labels.

Shared by the recipe engine and the generic fallback so both see the same cleaned page.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

# Never visible content, or content we cannot read (media, frames, vector art).
INVISIBLE_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "canvas",
    "iframe",
    "object",
    "embed",
    "link",
    "meta",
    "base",
    "video",
    "audio",
    "map",
)

# Hidden by attribute or inline style. `.a-offscreen` (Amazon's screen-reader price) is deliberately
# not here: recipes read prices from it, and it carries the only clean copy of the price.
HIDDEN_SELECTOR = ", ".join(
    [
        "[hidden]",
        "input[type=hidden]",
        '[style*="display:none"]',
        '[style*="display: none"]',
        '[style*="visibility:hidden"]',
        '[style*="visibility: hidden"]',
        ".aok-hidden",
        ".a-hidden",
        ".-athena-label",  # labels the Selectorlib browser extension writes into pages saved with it
    ]
)

_SPACE = re.compile(r"\s+")
_PRICE_SPLIT_SYMBOL = re.compile(r"([$€£¥])\s+(?=\d)")
_PRICE_SPLIT_DECIMAL = re.compile(r"(\d)\s*([.,])\s*(\d\d)(?!\d)")

MAX_TEXT = 300


def clean(tree: LexborHTMLParser) -> LexborHTMLParser:
    """Remove the invisible and hidden parts of a parsed raw page (once its declarations have been read)."""
    # Reverse document order removes nested matches before their ancestors, so no node is touched
    # after the subtree holding it has been freed.
    for selector in (", ".join(INVISIBLE_TAGS), HIDDEN_SELECTOR):
        for node in reversed(tree.css(selector)):
            node.decompose()
    return tree


def fold(text: str | None, limit: int | None = MAX_TEXT) -> str:
    """Collapse whitespace; cut to `limit` characters on a word boundary."""
    if not text:
        return ""
    folded = _SPACE.sub(" ", text).strip()
    if limit is not None and len(folded) > limit:
        cut = folded[:limit]
        space = cut.rfind(" ")
        folded = (cut[:space] if space > limit // 2 else cut).rstrip() + "…"
    return folded


def join_price(text: str) -> str:
    """Glue the pieces of a price rendered in separate spans ("$ 6 . 99" -> "$6.99")."""
    return _PRICE_SPLIT_DECIMAL.sub(r"\1\2\3", _PRICE_SPLIT_SYMBOL.sub(r"\1", text))


def text_of(node: LexborNode, limit: int | None = MAX_TEXT) -> str:
    """Visible text of a node, whitespace folded."""
    return fold(node.text(deep=True, separator=" ", strip=True), limit)


def attr(node: LexborNode, name: str) -> str:
    value = node.attributes.get(name)
    return fold(value) if value else ""


def label_of(node: LexborNode, tree: LexborHTMLParser | None = None) -> str:
    """The accessible label: what a screen reader would announce when there is no plain text.

    Order: aria-label, aria-labelledby (needs the tree), alt, value of buttons, placeholder,
    a descendant's aria-label / img alt, then title (often a verbose tooltip, so last).
    """
    if value := attr(node, "aria-label"):
        return value
    if tree is not None and (ids := node.attributes.get("aria-labelledby")):
        parts = []
        for ref in ids.split():
            target = tree.css_first(f'[id="{css_escape(ref)}"]')
            if target is not None:
                parts.append(text_of(target))
        if label := fold(" ".join(parts)):
            return label
    if value := attr(node, "alt"):
        return value
    if (
        node.tag in ("input", "button")
        and (node.attributes.get("type") or "").lower()
        not in (
            "text",
            "search",
            "email",
            "tel",
            "number",
            "password",
            "url",
        )
        and (value := attr(node, "value"))
    ):
        return value
    if value := attr(node, "placeholder"):
        return value
    inner = node.css_first("[aria-label]")
    if inner is not None and inner.mem_id != node.mem_id and (value := attr(inner, "aria-label")):
        return value
    image = node.css_first("img[alt]")
    if image is not None and (value := attr(image, "alt")):
        return value
    if value := attr(node, "title"):
        return value
    inner_title = node.css_first("[title]")
    if inner_title is not None and inner_title.mem_id != node.mem_id and (value := attr(inner_title, "title")):
        return value
    return ""


def css_escape(value: str) -> str:
    """Escape a value for use inside a double-quoted CSS attribute selector."""
    return value.replace("\\", "\\\\").replace('"', '\\"')
