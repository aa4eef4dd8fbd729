"""One fact of a page changed at a time, for the page-sensitivity benchmark (page_sensitivity.py).

Each manipulation edits the simplified HTML's text by regexes over prices, stars, review counts, stock and
delivery phrases, never keyed to one file; on a product page it changes the product in view, on a search page
every product. `check` parses both pages and says whether the facts changed as intended, so a manipulation
that did not apply is reported and not tested.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser

from agent.page.facts_model import PageFacts, ProductFacts
from agent.page.observation import Observation
from agent.page.parse import parse_page
from agent.page.product_blocks import product_blocks
from agent.page.simplifier.slug import slugify

# --- regexes over a page's text -------------------------------------------------------------------------------

_MONEY = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)")
_NOT_A_PRICE_AFTER = re.compile(r"\s*(?:delivery|shipping|of items|or more)\b", re.IGNORECASE)  # a fee or a threshold
_STARS = re.compile(r"(?<![\d.])([0-5](?:\.\d)?)(?= out of 5)")
_COUNT_PHRASE = re.compile(
    r"(?<![\d,.$])(\d{1,3}(?:,\d{3})+|\d+)(?=\s*(?:global\s+|customer\s+)*(?:ratings?|reviews?)\b)", re.IGNORECASE
)
_COUNT_AFTER_STARS = re.compile(
    r"(out of 5[^()<]{0,40}?)\(\s*(?:\d{1,3}(?:,\d{3})+|\d+)\s*\)"
)  # "5 out of 5 stars (6)"
_COUNT_PAREN = re.compile(r"\(\s*(\d{1,3}(?:,\d{3})+|\d+)\s*\)")
_STARS_PHRASE = re.compile(r"(?<![\d.])[0-5](?:\.\d)?(?:\s+[0-5](?:\.\d)?)? out of 5(?: stars)?", re.IGNORECASE)
_TEXT_NODE = re.compile(r">([^<>]+)<")
_NAME_ATTRIBUTE = re.compile(r'(\bname=")([^"]*)(")')
_DELIVERY_PROMISE = re.compile(
    r"free\s+(?:\w+\s+){0,2}?(?:delivery|shipping)\b|\$\s?[\d,.]+\s+(?:delivery|shipping)\b|"
    r"\bfastest delivery\b|\barrives\b|\bget it\b|\bdelivery (?:today|tomorrow|in \d)",
    re.IGNORECASE,
)
_STOCK = re.compile(
    r"\bonly \d+ left in stock\b[^<]*|\bin stock\b\.?|\bships (?:same day|today)\b\.?|\bready to ship\b", re.IGNORECASE
)
_REVIEW_NODES = (
    "[name*=review], [name*=rating], .product-rating, .product-rating-count, .review, [data-hook=review], "
    "#acrPopover, #acrCustomerReviewText"
)

RATING_DOWN = 1.6
FEW_REVIEWS = 7
NO_REVIEWS_TEXT = "No customer reviews"  # amazon.com's words for a product without reviews
PAID_SLOW = "$7.99 delivery in 2-3 weeks"
FREE_FAST = "FREE delivery Tomorrow"
MANY_OPTIONS = 30


def money(value: float) -> str:
    return f"${value:,.2f}"


def amount(digits: str) -> float:
    return float(digits.replace(",", ""))


# --- a page as regions: the product in view, or each product of a list ---------------------------------------


@dataclass
class Page:
    """A page as the twins read it (simplified HTML, serialised once so that regions are exact substrings)."""

    key: str
    origin: str  # real / project-made / hand-made fixture
    source: str
    kind: str  # product / search_results
    url: str | None
    html: str
    spans: list[tuple[int, int]] = field(
        default_factory=list
    )  # other products' blocks (product) / each product (search)

    @classmethod
    def make(cls, key: str, origin: str, source: str, kind: str, html: str, url: str | None) -> Page:
        tree = LexborHTMLParser(html)
        named = tree.css("[name]")
        groups, sections = product_blocks(named, [n.attributes.get("name") or "" for n in named])
        serial = tree.html
        blocks = [g.node.html for g in groups] + ([s.html for s in sections] if kind == "product" else [])
        spans: list[tuple[int, int]] = []
        for block in blocks:
            start = serial.find(block)
            while start >= 0 and any(a <= start < b for a, b in spans):
                start = serial.find(block, start + 1)
            if start >= 0 and not any(a <= start < b or start <= a < start + len(block) for a, b in spans):
                spans.append((start, start + len(block)))
        return cls(key, origin, source, kind, url, serial, sorted(spans))

    def edit(self, change) -> str:
        """`change(segment) -> segment` on the product in view (outside other products' blocks) or on every product."""
        out, at = [], 0
        if self.kind == "product":
            for a, b in self.spans:
                out += [change(self.html[at:a]), self.html[a:b]]
                at = b
            out.append(change(self.html[at:]))
        else:
            for a, b in self.spans:
                out += [self.html[at:a], change(self.html[a:b])]
                at = b
            out.append(self.html[at:])
        return "".join(out)


def _text(segment: str) -> str:
    tree = LexborHTMLParser(f"<body>{segment}</body>")
    return " ".join(tree.body.text(deep=True, separator=" ").split()) if tree.body else ""


def _first_price(segment: str) -> float | None:
    for match in _MONEY.finditer(segment):
        before = segment[max(0, match.start() - 24) : match.start()].lower()
        if re.search(r"(?:list price|list|was|typical price|typical)\s*:?\s*$", before):
            continue
        if not _NOT_A_PRICE_AFTER.match(segment, match.end()) and amount(match.group(1)) > 0:
            return amount(match.group(1))
    return None


def _after_price(segment: str, insert: str) -> str:
    """`insert` right after the element that shows the segment's first price (else at the segment's end)."""
    price = _first_price(segment)
    if price is None:
        return segment + insert
    match = next(
        m
        for m in _MONEY.finditer(segment)
        if amount(m.group(1)) == price and not _NOT_A_PRICE_AFTER.match(segment, m.end())
    )
    close = segment.find(">", segment.find("</", match.end()))
    return segment[: close + 1] + insert + segment[close + 1 :] if close >= 0 else segment + insert


def _text_nodes(segment: str, edit) -> str:
    return _TEXT_NODE.sub(lambda m: ">" + edit(m.group(1)) + "<", segment)


# --- the manipulations: each takes a Page and returns the changed HTML ----------------------------------------


def scale_prices(factor: float):
    """Every price of the product(s) times `factor`, in the text and in the element names that spell a price ("Black
    $12.99" is the option `black_12_99`): a shop that changed its price would show it in both."""

    def change(segment: str) -> str:
        renamed: dict[str, str] = {}

        def one(match: re.Match) -> str:
            if _NOT_A_PRICE_AFTER.match(segment, match.end()):
                return match.group(0)
            new = money(round(amount(match.group(1)) * factor + 1e-9, 2))
            renamed[slugify(match.group(0))] = slugify(new)
            return new

        changed = _MONEY.sub(one, segment)
        if not renamed:
            return changed
        spelled = re.compile(
            r"(?<![0-9])(" + "|".join(map(re.escape, sorted(renamed, key=len, reverse=True))) + r")(?![0-9])"
        )
        return _NAME_ATTRIBUTE.sub(
            lambda m: m.group(1) + spelled.sub(lambda p: renamed[p.group(1)], m.group(2)) + m.group(3), changed
        )

    return lambda page: page.edit(change)


def rating_down(page: Page) -> str:
    def change(segment: str) -> str:
        first = _STARS.search(segment)
        if not first:
            return segment
        value = re.escape(first.group(1))
        segment = re.sub(rf"(?<![\d.$]){value}(?=\s+{value} out of 5)", f"{RATING_DOWN}", segment)
        return re.sub(rf"(?<![\d.]){value}(?= out of 5)", f"{RATING_DOWN}", segment)

    return page.edit(change)


def few_reviews(page: Page) -> str:
    def change(segment: str) -> str:
        counts = {m.group(1) for m in _COUNT_PHRASE.finditer(segment)}
        segment = _COUNT_PHRASE.sub(str(FEW_REVIEWS), segment)
        segment = _COUNT_AFTER_STARS.sub(lambda m: f"{m.group(1)}({FEW_REVIEWS})", segment)
        if counts:  # "(48,211)" beside the stars: the same number as the phrase
            segment = _COUNT_PAREN.sub(lambda m: f"({FEW_REVIEWS})" if m.group(1) in counts else m.group(0), segment)
        return segment

    return page.edit(change)


def no_reviews(page: Page) -> str:
    """The stars and review count gone, and in their place what amazon.com shows for a product nobody has reviewed
    ("No customer reviews"): a page that shows reviews says when a product has none."""

    def change(segment: str) -> str:
        if not segment.strip():
            return segment
        tree = LexborHTMLParser(f"<body>{segment}</body>")
        found = tree.css(_REVIEW_NODES)
        if not found and not _STARS_PHRASE.search(segment):
            return segment
        for node in reversed(found[1:]):
            node.decompose()
        if found:  # the first in document order: no other found node is around it
            found[0].replace_with(NO_REVIEWS_TEXT)
        body = tree.body
        inner = "".join(child.html or "" for child in body.iter(include_text=True)) if body else segment
        if not found:  # stars in the text only: the first phrase becomes the words, the rest go
            inner = _STARS_PHRASE.sub(NO_REVIEWS_TEXT, inner, count=1)
        inner = _STARS_PHRASE.sub("", inner)
        return _COUNT_PHRASE.sub("", inner)

    return page.edit(change)


def deal(page: Page) -> str:
    """The list price shown at twice the price (50% off): an existing list price replaced, else one added."""

    def change(segment: str) -> str:
        price = _first_price(segment)
        if price is None:
            return segment
        shown = list_price_of(segment)
        if shown is not None:
            return _MONEY.sub(lambda m: money(2 * price) if amount(m.group(1)) == shown else m.group(0), segment)
        return _after_price(segment, f'<span class="a-text-price">List Price: {money(2 * price)}</span>')

    return page.edit(change)


def list_price_of(segment: str) -> float | None:
    struck = re.search(r'class="[^"]*(?:product-list-price|a-text-price|basisPrice)[^"]*"[^>]*>(.*?)</', segment, re.S)
    if struck and (found := _MONEY.search(_text(struck.group(1)))):
        return amount(found.group(1))
    for match in _MONEY.finditer(segment):
        if re.search(
            r"(?:list price|list|was|typical price|typical)\s*:?\s*$",
            _text(segment[max(0, match.start() - 60) : match.start()])[-24:].lower(),
        ):
            return amount(match.group(1))
    return None


def unavailable(page: Page) -> str:
    def change(segment: str) -> str:
        if _first_price(segment) is None and "add_to_cart" not in segment:
            return segment
        changed = _STOCK.sub("Currently unavailable.", segment)
        if changed != segment:
            return changed
        return _after_price(segment, '<div class="availability">Currently unavailable.</div>')

    return page.edit(change)


def delivery(phrase: str):
    """Every delivery promise of the product(s) removed and `phrase` shown beside the price."""

    def change(segment: str) -> str:
        if _first_price(segment) is None:
            return segment
        segment = _text_nodes(
            segment, lambda text: " " if len(text) <= 160 and _DELIVERY_PROMISE.search(text) else text
        )
        return _after_price(segment, f'<div class="product-delivery">{phrase}</div>')

    return lambda page: page.edit(change)


def sponsored(page: Page) -> str:
    def change(segment: str) -> str:
        if re.search(r"\bsponsored\b", _text(segment), re.IGNORECASE) or _first_price(segment) is None:
            return segment
        return _after_price(segment, '<span class="puis-label-popover">Sponsored</span>')

    return page.edit(change)


def many_options(page: Page) -> str:
    """30 option choices for the product in view: a 'Style' list added beside the existing ones."""
    focus = parse_page(page.html, page.url).facts.focus_product
    existing = focus.option_count if focus is not None else 0
    if existing >= MANY_OPTIONS:
        return page.html
    add = max(0, MANY_OPTIONS - existing)
    items = "".join(
        f'<li name="product_options.style.button_list.style_{i}" role="radio">Style {i}</li>' for i in range(1, add + 1)
    )
    block = (
        f'<div name="product_options.style"><div><span>Style:</span><span>Style 1</span></div>'
        f'<ul name="product_options.style.button_list" role="radiogroup">{items}</ul></div>'
    )
    done = [False]

    def change(segment: str) -> str:
        if done[0] or _first_price(segment) is None:
            return segment
        done[0] = True
        return _after_price(segment, block)

    return page.edit(change)


MANIPULATIONS = {
    "price_x2.5": scale_prices(2.5),
    "price_x0.5": scale_prices(0.5),
    "rating_1.6": rating_down,
    "reviews_7": few_reviews,
    "no_reviews": no_reviews,
    "deal_50pct": deal,
    "unavailable": unavailable,
    "delivery_free_fast": delivery(FREE_FAST),
    "delivery_paid_slow": delivery(PAID_SLOW),
    "sponsored": sponsored,
    "options_30": many_options,
}
ONLY_ON = {"options_30": "product", "sponsored": "search_results"}
WHY_NOT = {
    "options_30": "search results show no option choices per product",
    "sponsored": "the facts never mark the product in view sponsored (page_facts: 'ads on a product page are for "
    "other products'), so a label beside it cannot reach the brain",
}


# --- did it change what was intended? -------------------------------------------------------------------------


def targets(facts: PageFacts) -> list[ProductFacts]:
    return [facts.focus_product] if facts.focus is not None else list(facts.products)


def close(a: float | None, b: float | None, tol: float = 0.011) -> bool:
    return a is not None and b is not None and abs(a - b) <= tol


def check(name: str, before: Observation, after: Observation) -> dict:
    """{'applied': bool, 'reason'?, 'changed': k, 'eligible': n, facts before/after of the first target}."""
    if after.page_type != before.page_type:
        return {
            "applied": False,
            "reason": f"the page type changed ({before.page_type} -> {after.page_type}): a confound",
        }
    old, new = targets(before.facts), targets(after.facts)
    if not old:
        return {
            "applied": False,
            "reason": "the facts find no product on this page (no price, stars or buy button read)",
        }
    if len(old) != len(new):
        return {"applied": False, "reason": f"products in view changed ({len(old)} -> {len(new)})"}
    factor = {"price_x2.5": 2.5, "price_x0.5": 0.5}.get(name)
    pairs = list(zip(old, new, strict=True))
    if factor:
        eligible = [(o, n) for o, n in pairs if o.price]
        ok = [close(n.price, round(o.price * factor + 1e-9, 2)) for o, n in eligible]
    elif name == "rating_1.6":
        eligible = [(o, n) for o, n in pairs if o.rating]
        ok = [n.rating == RATING_DOWN for o, n in eligible]
    elif name == "reviews_7":
        eligible = [(o, n) for o, n in pairs if o.review_count]
        ok = [n.review_count == FEW_REVIEWS for o, n in eligible]
    elif name == "no_reviews":
        eligible = [(o, n) for o, n in pairs if o.rating or o.review_count]
        ok = [n.rating is None and not n.review_count for o, n in eligible]
    elif name == "deal_50pct":
        eligible = [(o, n) for o, n in pairs if o.price]
        ok = [close(n.price, o.price) and n.discount is not None and abs(n.discount - 0.5) < 0.002 for o, n in eligible]
    elif name == "unavailable":
        eligible = [(o, n) for o, n in pairs if o.price or o.buy_names]
        ok = [n.availability == "unavailable" and n.buy_names == o.buy_names for o, n in eligible]
    elif name == "delivery_free_fast":
        eligible = [(o, n) for o, n in pairs if o.price]
        ok = [n.delivery_free is True and n.delivery_days is not None and n.delivery_days <= 1 for o, n in eligible]
    elif name == "delivery_paid_slow":
        eligible = [(o, n) for o, n in pairs if o.price]
        ok = [n.delivery_fee == 7.99 and n.delivery_free is False for o, n in eligible]
    elif name == "sponsored":
        eligible = [(o, n) for o, n in pairs if o.price]
        ok = [n.sponsored for o, n in eligible]
    elif name == "options_30":
        eligible = [(o, n) for o, n in pairs if o.option_count < MANY_OPTIONS]
        if not eligible:
            return {"applied": False, "reason": f"the product already shows {old[0].option_count} option choices"}
        ok = [n.option_count == MANY_OPTIONS for o, n in eligible]
    else:
        raise KeyError(name)
    result = {
        "changed": int(sum(ok)),
        "eligible": len(eligible),
        "first_before": brief(old[0]),
        "first_after": brief(new[0]),
    }
    if before.facts.focus is not None:
        others_before = [brief(p) for p in before.facts.alternatives()]
        others_after = [brief(p) for p in after.facts.alternatives()]
        result["other_products_changed"] = sum(a != b for a, b in zip(others_before, others_after, strict=False)) + abs(
            len(others_before) - len(others_after)
        )
    if name == "delivery_paid_slow":
        result["note"] = (
            "the facts read no delivery days from '2-3 weeks' (fact_texts reads only days): the brain "
            "sees the fee, not the slowness"
        )
    if not eligible:
        result.update(applied=False, reason="the page shows no such fact for the product(s) in view")
    elif not all(ok):
        result.update(applied=False, reason=f"the facts changed as intended for {sum(ok)} of {len(eligible)} products")
    elif name in ("delivery_free_fast", "sponsored", "deal_50pct") and all(brief(o) == brief(n) for o, n in eligible):
        result.update(applied=False, reason="the page already showed this: nothing changed")
    else:
        result["applied"] = True
    return result


def brief(p: ProductFacts) -> dict:
    return {
        "price": p.price,
        "list_price": p.list_price,
        "rating": p.rating,
        "reviews": p.review_count,
        "free": p.delivery_free,
        "fee": p.delivery_fee,
        "days": p.delivery_days,
        "availability": p.availability,
        "sponsored": p.sponsored,
        "options": p.option_count,
    }
