"""Does a page's hand-annotated key element come out of the simplifier? (corpus/manifest.json `key_elements`)

The ground truth names key elements by CSS selector on the raw page (corpus/README.md). An element "comes out"
when the simplified page carries it where a twin reads it:

1. **By identity.** Every raw element is marked with its index (`data-corpus-node`, as live browsing marks the
   DOM) before simplifying with `source_attribute`, so each produced name says which raw element it was made
   from. The element comes out when a name of the expected kind was made from the element itself, from an
   element inside it (a drop-down's options), or from a wrapper up to two levels up that holds no other
   element of the same selector (a button around the annotated label).
2. **By value, for what a shopper reads** (title, price, rating, review count): the raw element's value shows
   in the simplified page's text: the whole title, the first money amount ("$ 29 . 99" glued to "$29.99"), the
   rating "N out of 5" (from its text, labels or a `rating` attribute) or the review count's text. An element
   that carries no readable value (stars drawn as a picture without alt text) is compared with the value the
   ground truth read off the page (`facts`: title, price, rating, review_count).

On Amazon pages (the site is amazon.*) the name must be OPeRA's for the kind (`AMAZON_NAMES`) and value
matches count only inside elements of that name or its class (`.product-price` ...); on any other site any
name the generic fallback produced counts, and values may show anywhere in the page's text. A kind whose
selector matches several elements (every result's price, every filter choice) is covered when at least
`SHARE` of them come out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page.simplifier import SimplifiedPage, simplify_html
from agent.page.simplifier.dom import fold, join_price

MARK = "data-corpus-node"
SHARE = 0.9
TEXT_KINDS = ("product_title", "price", "rating", "review_count")
FACT_OF_KIND = {"product_title": "title", "price": "price", "rating": "rating", "review_count": "review_count"}
WRAPPER_LEVELS = 2

# OPeRA's names (../shared/data/opera/README.md, docs/simplifier.md) for each kind, product and search pages.
AMAZON_NAMES: dict[str, str] = {
    "search_box": r"nav_bar\.search_input",
    "search_button": r"nav_bar\.search_button",
    "product_title": r"product_title|search_results\.[^.]+\.product_name",
    "price": r"product_price|search_results\.[^.]+\.product_price",
    "rating": r"reviews\.star_rating",
    "review_count": r"reviews",
    "options": r"product_options\..+",
    "quantity": r"buybox\.(?:[a-z0-9_]+\.)*quantity_selector|active_item_list\.[^.]+\.quantity_selector",
    "add_to_cart": r"buybox\.(?:[a-z0-9_]+\.)*add_to_cart|search_results\.[^.]+\.add_to_cart",
    "buy_now": r"buybox\.(?:[a-z0-9_]+\.)*buy_now",
    "cart_link": r"nav_bar\.cart_button",
    "checkout": r"(?:[a-z0-9_]+\.)*check_out",
    "filters": r"refinements\..+",
    "next_page": r"pagination\..+",
}
# Classes Amazon recipes give the unnamed text a shopper reads (docs/simplifier.md, "Fact text kept").
AMAZON_TEXT_CLASSES = {
    "product_title": ".product-title",
    "price": ".product-price",
    "rating": ".product-rating",
    "review_count": ".product-rating-count",
}

_MONEY = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d\d)?|\d[\d.,]*\s?(?:€|EUR)")
_RATING = re.compile(r"(\d(?:[.,]\d{1,2})?)\s*(?:out of|von|/)\s*5\b", re.IGNORECASE)
_RATING_ATTRS = ("rating", "data-rating", "data-score", "data-stars")


@dataclass(frozen=True, slots=True)
class KindResult:
    """One key element kind on one page: how many annotated elements there are and how many came out."""

    kind: str
    selector: str
    annotated: int
    came_out: int
    names: tuple[str, ...] = ()  # a few of the names that carried it, for reports

    @property
    def covered(self) -> bool:
        return self.annotated > 0 and self.came_out >= SHARE * self.annotated


@dataclass
class PageCoverage:
    """Every annotated kind of one page."""

    file: str
    recipe: str
    kinds: list[KindResult] = field(default_factory=list)

    @property
    def covered(self) -> int:
        return sum(result.covered for result in self.kinds)

    @property
    def share(self) -> float | None:
        return self.covered / len(self.kinds) if self.kinds else None


def mark(raw_html: str) -> tuple[LexborHTMLParser, str]:
    """Parse the raw page and give every element its document-order index; returns the tree and its HTML."""
    tree = LexborHTMLParser(raw_html)
    index = 0
    assert tree.root is not None  # a parsed document always has a root
    for node in tree.root.traverse():
        if node.tag and not node.tag.startswith("-"):
            node.attrs[MARK] = str(index)
            index += 1
    return tree, tree.html or ""


def page_coverage(
    raw_html: str, key_elements: dict[str, str], amazon: bool, file: str = "", facts: dict | None = None
) -> PageCoverage:
    """Simplify the (marked) page and check each annotated kind; `facts` are the ground truth's read values."""
    tree, marked = mark(raw_html)
    page = simplify_html(marked, source_attribute=MARK)
    out = LexborHTMLParser(page.html)
    result = PageCoverage(file, page.recipe)
    for kind, selector in key_elements.items():
        nodes = tree.css(selector)
        same_kind = {node.mem_id for node in nodes}
        came_out, names = 0, list[str]()
        for node in nodes:
            name = _by_identity(node, kind, same_kind, page, amazon)
            known = (facts or {}).get(FACT_OF_KIND.get(kind, ""))
            if name is None and kind in TEXT_KINDS and _by_value(node, kind, out, amazon, known):
                name = "(text)"
            if name is not None:
                came_out += 1
                if name not in names and len(names) < 3:
                    names.append(name)
        result.kinds.append(KindResult(kind, selector, len(nodes), came_out, tuple(names)))
    return result


def _by_identity(node: LexborNode, kind: str, same_kind: set[int], page: SimplifiedPage, amazon: bool) -> str | None:
    marks = {child.attributes.get(MARK) for child in node.traverse() if child.attributes.get(MARK)}
    parent = node.parent
    for _ in range(WRAPPER_LEVELS):
        if parent is None or any(
            inner.mem_id in same_kind and inner.mem_id != node.mem_id for inner in parent.traverse()
        ):
            break
        if value := parent.attributes.get(MARK):
            marks.add(value)
        parent = parent.parent
    pattern = re.compile(AMAZON_NAMES[kind]) if amazon else None
    for name, source in page.sources.items():
        if source in marks and (pattern is None or pattern.fullmatch(name)):
            return name
    return None


def _by_value(
    node: LexborNode, kind: str, out: LexborHTMLParser, amazon: bool, known: str | float | None = None
) -> bool:
    wanted = raw_value(node, kind) or _known_value(kind, known)
    if not wanted:
        return False
    if amazon:  # only where Amazon recipes put this kind: its name or its class
        pattern = re.compile(AMAZON_NAMES[kind])
        regions = out.css(AMAZON_TEXT_CLASSES[kind])
        regions += [n for n in out.css("[name]") if pattern.fullmatch(n.attributes.get("name") or "")]
    else:
        regions = [out.body] if out.body is not None else []
    return any(_contains(_reading(region), wanted, kind) for region in regions)


def raw_value(node: LexborNode, kind: str) -> str:
    """What a shopper reads off the raw element, as compared: title text, money amount, rating, count text."""
    reading = _reading(node)
    if kind == "product_title":
        return reading.lower()
    if kind == "price":
        found = _MONEY.search(join_price(reading))
        return _money(found.group(0)) if found else ""
    if kind == "rating":
        found = _RATING.search(reading)
        if found:
            return _number(found.group(1))
        for attr in _RATING_ATTRS:
            if value := (node.attributes.get(attr) or "").strip():
                return _number(value)
        return ""
    return reading.lower()  # review_count: its text, e.g. "(6)", "82 ratings"


def _known_value(kind: str, value: str | float | None) -> str:
    """The ground truth's value in the form raw_value gives."""
    if value is None:
        return ""
    if kind in ("price", "rating"):
        return f"{float(value):.2f}"
    return str(value).lower()


def _reading(node: LexborNode | None) -> str:
    """Visible text plus the labels that stand for text (aria-label, title, alt)."""
    if node is None:
        return ""
    parts = [node.text(deep=True, separator=" ")]
    for inner in node.traverse():
        for attr in ("aria-label", "title", "alt"):
            if value := inner.attributes.get(attr):
                parts.append(value)
    return fold(" ".join(parts), None)


def _contains(text: str, wanted: str, kind: str) -> bool:
    if kind == "price":
        return wanted in {_money(m) for m in _MONEY.findall(join_price(text))}
    if kind == "rating":
        return wanted in {_number(m) for m in _RATING.findall(text)}
    return wanted in text.lower()


def _money(text: str) -> str:
    digits = re.sub(r"[^\d.,]", "", text)
    if "," in digits and "." not in digits and re.search(r",\d\d$", digits):
        digits = digits.replace(",", ".")  # 12,99 € -> 12.99
    return f"{float(digits.replace(',', '')):.2f}"


def _number(text: str) -> str:
    try:
        return f"{float(text.replace(',', '.')):.2f}"
    except ValueError:
        return ""
