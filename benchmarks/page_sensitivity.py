"""How twins react to what a page shows: one fact of a page changed at a time, the same twins deciding on both.
Writes benchmarks/results/page_sensitivity.json.

Pages: every product and search-results page the project has. Project-made: agent/sample_pages/product_page.html
and search_results.html (OPeRA-format) and the demo shop's product page (service/demo_shop, raw HTML through the
simplifier). Real: the raw amazon search page in ../shared/data/pages and every product / search_results page
listed in corpus/manifest.json (read at run time). Hand-made fixtures (not real pages):
tests/fixtures/raw_pages/amazon_product*.html. Raw pages go through agent.simplifier first.

Manipulations (functions below, applied to the simplified HTML's text by regexes over prices, stars, review
counts, stock and delivery phrases; never keyed to one file): price x2.5 and x0.5, rating down to 1.6 stars, 7
reviews, no ratings or reviews, a deal (list price shown at twice the price), "Currently unavailable" (buy
buttons kept), free next-day delivery, "$7.99 delivery in 2-3 weeks", a sponsored label, 30 option choices. On a
product page they change the product in view (other products' blocks are left alone); on a search page every
product. Each variant is parsed with parse_page and checked: a manipulation whose facts did not change as
intended is reported `applied: false` with the reason and not tested.

Twins: the 52 OPeRA personas (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) x 20 instances, embedded brain,
sample mode, common random numbers (seed = instance, the same in every variant), no memories. History: a search
(query typed, search clicked) and, on a product page, a click on that product's link. One decision each.
Outcomes: purchase, leave (terminate), review reading (label review). Paired McNemar per outcome (the test
agent/experiments/statistics.py uses), Holm over every test of the run, within trait groups too.

Run: .venv/bin/python benchmarks/page_sensitivity.py [--instances 20]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from _common import REPO, SHARED_OPERA, write_result  # noqa: E402

from selectolax.lexbor import LexborHTMLParser  # noqa: E402
from statsmodels.stats.multitest import multipletests  # noqa: E402

from agent.actions import ClickAction, InputAction  # noqa: E402
from agent.decision import TwinContext  # noqa: E402
from agent.brains.embedded import EmbeddedBrain  # noqa: E402
from agent.experiments.statistics import _paired_binary  # noqa: E402
from agent.history import Step  # noqa: E402
from agent.observation import Observation, parse_page  # noqa: E402
from agent.page_facts import PageFacts, ProductFacts  # noqa: E402
from agent.product_blocks import product_blocks  # noqa: E402
from agent.simplifier import simplify_html  # noqa: E402
from agent.simplifier.slug import slugify  # noqa: E402
from personas.sensitivities import sensitivities  # noqa: E402
from personas.sources import load_personas  # noqa: E402

CITATION = "OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0 (personas)"
SHARED_PAGES = SHARED_OPERA.parent / "pages"
ALPHA = 0.05
OUTCOMES = ("purchase", "leave", "review")
LABEL_OF = {"purchase": "purchase", "leave": "terminate", "review": "review"}

# --- regexes over a page's text -------------------------------------------------------------------------------

_MONEY = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)")
_NOT_A_PRICE_AFTER = re.compile(r"\s*(?:delivery|shipping|of items|or more)\b", re.IGNORECASE)  # a fee or a threshold
_STARS = re.compile(r"(?<![\d.])([0-5](?:\.\d)?)(?= out of 5)")
_COUNT_PHRASE = re.compile(r"(?<![\d,.$])(\d{1,3}(?:,\d{3})+|\d+)(?=\s*(?:global\s+|customer\s+)*(?:ratings?|reviews?)\b)",
                           re.IGNORECASE)
_COUNT_AFTER_STARS = re.compile(r"(out of 5[^()<]{0,40}?)\(\s*(?:\d{1,3}(?:,\d{3})+|\d+)\s*\)")  # "5 out of 5 stars (6)"
_COUNT_PAREN = re.compile(r"\(\s*(\d{1,3}(?:,\d{3})+|\d+)\s*\)")
_STARS_PHRASE = re.compile(r"(?<![\d.])[0-5](?:\.\d)?(?:\s+[0-5](?:\.\d)?)? out of 5(?: stars)?", re.IGNORECASE)
_TEXT_NODE = re.compile(r">([^<>]+)<")
_DELIVERY_PROMISE = re.compile(r"free\s+(?:\w+\s+){0,2}?(?:delivery|shipping)\b|\$\s?[\d,.]+\s+(?:delivery|shipping)\b|"
                               r"\bfastest delivery\b|\barrives\b|\bget it\b|\bdelivery (?:today|tomorrow|in \d)",
                               re.IGNORECASE)
_STOCK = re.compile(r"\bonly \d+ left in stock\b[^<]*|\bin stock\b\.?|\bships (?:same day|today)\b\.?|\bready to ship\b",
                    re.IGNORECASE)
_REVIEW_NODES = ("[name*=review], [name*=rating], .product-rating, .product-rating-count, .review, [data-hook=review], "
                 "#acrPopover, #acrCustomerReviewText")

RATING_DOWN = 1.6
FEW_REVIEWS = 7
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
    origin: str            # real / project-made / hand-made fixture
    source: str
    kind: str              # product / search_results
    url: str | None
    html: str
    spans: list[tuple[int, int]] = field(default_factory=list)  # other products' blocks (product) / each product (search)

    @classmethod
    def make(cls, key: str, origin: str, source: str, kind: str, html: str, url: str | None) -> "Page":
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
        before = segment[max(0, match.start() - 24):match.start()].lower()
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
    match = next(m for m in _MONEY.finditer(segment) if amount(m.group(1)) == price
                 and not _NOT_A_PRICE_AFTER.match(segment, m.end()))
    close = segment.find(">", segment.find("</", match.end()))
    return segment[:close + 1] + insert + segment[close + 1:] if close >= 0 else segment + insert


def _text_nodes(segment: str, edit) -> str:
    return _TEXT_NODE.sub(lambda m: ">" + edit(m.group(1)) + "<", segment)


# --- the manipulations: each takes a Page and returns the changed HTML ----------------------------------------

def scale_prices(factor: float):
    def change(segment: str) -> str:
        def one(match: re.Match) -> str:
            if _NOT_A_PRICE_AFTER.match(segment, match.end()):
                return match.group(0)
            return money(round(amount(match.group(1)) * factor + 1e-9, 2))
        return _MONEY.sub(one, segment)
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
    def change(segment: str) -> str:
        if not segment.strip():
            return segment
        tree = LexborHTMLParser(f"<body>{segment}</body>")
        found = tree.css(_REVIEW_NODES)
        if not found and not _STARS_PHRASE.search(segment):
            return segment
        for node in reversed(found):
            node.decompose()
        body = tree.body
        inner = "".join(child.html or "" for child in body.iter(include_text=True)) if body else segment
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
        if re.search(r"(?:list price|list|was|typical price|typical)\s*:?\s*$",
                     _text(segment[max(0, match.start() - 60):match.start()])[-24:].lower()):
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
        segment = _text_nodes(segment, lambda text: " " if len(text) <= 160 and _DELIVERY_PROMISE.search(text) else text)
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
    items = "".join(f'<li name="product_options.style.button_list.style_{i}" role="radio">Style {i}</li>'
                    for i in range(1, add + 1))
    block = (f'<div name="product_options.style"><div><span>Style:</span><span>Style 1</span></div>'
             f'<ul name="product_options.style.button_list" role="radiogroup">{items}</ul></div>')
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
        return {"applied": False, "reason": f"the page type changed ({before.page_type} -> {after.page_type}): a confound"}
    old, new = targets(before.facts), targets(after.facts)
    if not old:
        return {"applied": False, "reason": "the facts find no product on this page (no price, stars or buy button read)"}
    if len(old) != len(new):
        return {"applied": False, "reason": f"products in view changed ({len(old)} -> {len(new)})"}
    factor = {"price_x2.5": 2.5, "price_x0.5": 0.5}.get(name)
    pairs = list(zip(old, new))
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
    result = {"changed": int(sum(ok)), "eligible": len(eligible),
              "first_before": _brief(old[0]), "first_after": _brief(new[0])}
    if before.facts.focus is not None:
        others_before = [_brief(p) for p in before.facts.alternatives()]
        others_after = [_brief(p) for p in after.facts.alternatives()]
        result["other_products_changed"] = sum(a != b for a, b in zip(others_before, others_after)) + abs(
            len(others_before) - len(others_after))
    if name == "delivery_paid_slow":
        result["note"] = ("the facts read no delivery days from '2-3 weeks' (fact_texts reads only days): the brain "
                          "sees the fee, not the slowness")
    if not eligible:
        result.update(applied=False, reason="the page shows no such fact for the product(s) in view")
    elif not all(ok):
        result.update(applied=False, reason=f"the facts changed as intended for {sum(ok)} of {len(eligible)} products")
    elif name in ("delivery_free_fast", "sponsored", "deal_50pct") and all(_brief(o) == _brief(n) for o, n in eligible):
        result.update(applied=False, reason="the page already showed this: nothing changed")
    else:
        result["applied"] = True
    return result


def _brief(p: ProductFacts) -> dict:
    return {"price": p.price, "list_price": p.list_price, "rating": p.rating, "reviews": p.review_count,
            "free": p.delivery_free, "fee": p.delivery_fee, "days": p.delivery_days, "availability": p.availability,
            "sponsored": p.sponsored, "options": p.option_count}


# --- the pages --------------------------------------------------------------------------------------------------

def load_pages() -> list[Page]:
    pages: list[Page] = []
    samples = REPO / "agent" / "sample_pages"
    pages.append(Page.make("sample product page", "project-made", "agent/sample_pages/product_page.html", "product",
                           (samples / "product_page.html").read_text(encoding="utf-8"), None))
    pages.append(Page.make("sample search page", "project-made", "agent/sample_pages/search_results.html",
                           "search_results", (samples / "search_results.html").read_text(encoding="utf-8"), None))
    real_search = SHARED_PAGES / "amazon_search_results.html"
    if real_search.exists():
        url = "https://www.amazon.com/s?k=basketball+shoes"
        pages.append(Page.make("amazon search (basketball shoes)", "real", "../shared/data/pages/amazon_search_results.html",
                               "search_results", simplify_html(real_search.read_text(errors="replace"), url).html, url))
    corpus = REPO / "corpus"
    for entry in json.loads((corpus / "manifest.json").read_text()):
        if entry.get("kind") not in ("product", "search_results"):
            continue
        raw = (corpus / entry["file"]).read_text(errors="replace")
        pages.append(Page.make(f"corpus {entry['site']} {Path(entry['file']).stem}", "real", f"corpus/{entry['file']}",
                               entry["kind"], simplify_html(raw, None).html, None))
    from fastapi.testclient import TestClient

    from service.demo_shop import create_shop_app
    from service.demo_shop.catalog import PRODUCTS
    with TestClient(create_shop_app()) as shop:
        response = shop.get(f"/dp/{PRODUCTS[0].asin}")
        url = str(response.url)
        pages.append(Page.make("demo shop product page", "project-made", f"service/demo_shop /dp/{PRODUCTS[0].asin}",
                               "product", simplify_html(response.text, url).html, url))
    for path in sorted((REPO / "tests" / "fixtures" / "raw_pages").glob("amazon_product*.html")):
        url = "https://www.amazon.com/dp/B0EXAMPLE1"
        pages.append(Page.make(f"fixture {path.stem}", "hand-made fixture (not a real page)",
                               f"tests/fixtures/raw_pages/{path.name}", "product",
                               simplify_html(path.read_text(encoding="utf-8"), url).html, url))
    return pages


def history_for(page: Page, control: Observation) -> list[Step]:
    """A twin arriving from a search (and, on a product page, a click on this product's link)."""
    focus = control.facts.focus_product
    box = control.by_name.get("nav_bar.search_input")
    if focus is not None and focus.title:
        query = " ".join(focus.title.lower().replace(",", " ").split()[:4])
    else:
        query = (box.text if box is not None and box.text else "") or " ".join(
            (control.facts.products[0].title if control.facts.products else "shopping").lower().split()[:3])
    steps = [Step(action=InputAction(name="nav_bar.search_input", text=query)),
             Step(action=ClickAction(name="nav_bar.search_button"), click_type="search")]
    if page.kind == "product":
        title = focus.title if focus is not None and focus.title else control.title
        steps.append(Step(action=ClickAction(name=f"search_results.{slugify(title)}.product_name"), click_type="product_link"))
    return steps


# --- the run ----------------------------------------------------------------------------------------------------

EXPECTED = {  # outcome -> direction published research expects (+1 up, -1 down), and the trait that should matter
    "price_x2.5": ({"purchase": -1, "leave": +1}, "price"),
    "price_x0.5": ({"purchase": +1, "leave": -1}, "price"),
    "rating_1.6": ({"purchase": -1}, "reviews"),
    "reviews_7": ({"purchase": -1}, "reviews"),
    "no_reviews": ({"purchase": -1}, "reviews"),
    "deal_50pct": ({"purchase": +1}, "price"),
    "unavailable": ({"purchase": -1, "leave": +1}, None),
    "delivery_free_fast": ({}, "delivery"),
    "delivery_paid_slow": ({"purchase": -1}, "delivery"),
    "sponsored": ({}, "ad_trust"),   # depends on ad trust: up for the ad-trusting (trait group), see below
    "options_30": ({}, "over_choice"),
}
TRAIT_EXPECTED = {  # direction expected within the trait group (sensitivity > 0)
    "sponsored": {"purchase": +1},
    "options_30": {"purchase": -1},
}
SOURCES = {
    "price": "Bijmolt, van Heerde & Pieters 2005 (price elasticity, mean -2.62)",
    "reviews": "You, Vadakkepatt & Joshi 2015 (eWOM valence and volume); Spiegel Research Center 2017 (first reviews)",
    "deal": "reference prices: a shown list price raises purchase intent (e.g. Grewal, Monroe & Krishnan 1998)",
    "unavailable": "Gruen, Corsten & Bharadwaj 2002 (stockouts: buy elsewhere or not at all)",
    "delivery": "Fisher, Gallino & Xu 2019 (faster delivery raises sales); fees deter purchase",
    "sponsored": "Edelman & Gilchrist 2012 (ad label wording moved ad clicks); depends on ad trust",
    "options": "Scheibehenne, Greifeneder & Todd 2010 (choice overload near zero on average); the confused",
}
TRAIT_LABEL = {"price": "price-conscious", "reviews": "review-engaged", "delivery": "delivery-minded",
               "ad_trust": "ad-trusting", "over_choice": "over-choice confused"}


def seed_of(p: int, i: int, per_persona: bool) -> int:
    """The same in every variant. By default each persona and instance has its own, as experiments seed
    (agent/experiments/runner.instance_seed); with --seeds instance every persona draws with the same 20."""
    return 1_000_000 + 1_000 * p + i if per_persona else 1_000 + i


def decide_all(brain: EmbeddedBrain, personas, observation: Observation, history: list[Step], instances: int,
               per_persona: bool = False):
    """labels[p, i] and rationales for every persona x instance."""
    labels = np.empty((len(personas), instances), dtype=object)
    rationales = np.empty((len(personas), instances), dtype=object)
    for p, persona in enumerate(personas):
        for i in range(instances):
            decision = brain.decide_sync(TwinContext(persona=persona, memories=[], observation=observation,
                                                     history=history, mode="sample",
                                                     seed=seed_of(p, i, per_persona)))
            labels[p, i] = decision.details["label"]
            rationales[p, i] = decision.rationale
    return labels, rationales


def rate(labels: np.ndarray, outcome: str) -> np.ndarray:
    return (labels == LABEL_OF[outcome]).astype(float)


def cites_price(rationales: np.ndarray, labels: np.ndarray) -> dict:
    mask = labels != "purchase"
    texts = rationales[mask]
    hits = sum(1 for t in texts if "$" in t or "price" in t.lower())
    return {"non_buyers": int(mask.sum()), "cite_price": hits, "share": round(hits / mask.sum(), 4) if mask.sum() else None}


def compare(control: np.ndarray, treated: np.ndarray, outcome: str, rows: np.ndarray | None = None) -> dict:
    a, b = rate(control, outcome), rate(treated, outcome)
    if rows is not None:
        a, b = a[rows], b[rows]
    a, b = a.ravel(), b.ravel()
    test = _paired_binary(a, b)
    discordant = test["table"]["control_only"] + test["table"]["variant_only"]
    return {"n_pairs": int(a.size), "control": round(float(a.mean()), 4) if a.size else None,
            "treatment": round(float(b.mean()), 4) if a.size else None,
            "diff_points": round(100 * float(b.mean() - a.mean()), 2) if a.size else None,
            "test": test["test"], "p_value": test["p_value"] if discordant else None, "table": test["table"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--seeds", choices=("instance", "persona"), default="persona",
                        help="persona (the default, as experiments seed): one seed per persona and instance, the same "
                             "in every variant; instance: seed = 1000 + instance for every persona (results in "
                             "page_sensitivity_shared_seeds.json)")
    args = parser.parse_args()
    per_persona = args.seeds == "persona"
    started = time.perf_counter()
    personas = load_personas(SHARED_OPERA / "personas.jsonl")
    sens = [sensitivities(p) for p in personas]
    brain = EmbeddedBrain()
    pages = load_pages()
    all_tests: list[dict] = []
    page_results = []
    table = []
    decisions = 0
    for page in pages:
        control = parse_page(page.html, page.url)
        history = history_for(page, control)
        c_labels, c_rationales = decide_all(brain, personas, control, history, args.instances, per_persona)
        decisions += c_labels.size
        page_entry = {"page": page.key, "origin": page.origin, "source": page.source, "kind": page.kind,
                      "page_type": control.page_type, "url": page.url, "products": len(control.facts.products),
                      "can_buy": control.facts.can_buy, "history": [s.action.model_dump() for s in history],
                      "control_facts": _brief(targets(control.facts)[0]) if targets(control.facts) else None,
                      "control_rates": {o: round(float(rate(c_labels, o).mean()), 4) for o in OUTCOMES},
                      "manipulations": {}}
        treated_by_name = {}
        for name, manipulate in MANIPULATIONS.items():
            entry: dict
            if ONLY_ON.get(name, page.kind) != page.kind:
                entry = {"applied": False, "reason": WHY_NOT[name]}
            else:
                observation = parse_page(manipulate(page), page.url)
                entry = check(name, control, observation)
                if entry["applied"]:
                    t_labels, t_rationales = decide_all(brain, personas, observation, history, args.instances,
                                                              per_persona)
                    decisions += t_labels.size
                    treated_by_name[name] = t_labels
                    entry["outcomes"] = outcomes_of(name, c_labels, t_labels, sens, all_tests, page.key)
                    if name == "price_x2.5":
                        page_entry["rationale_cites_price"] = {"control": cites_price(c_rationales, c_labels),
                                                               "price_x2.5": cites_price(t_rationales, t_labels)}
            page_entry["manipulations"][name] = entry
        if "delivery_free_fast" in treated_by_name and "delivery_paid_slow" in treated_by_name:
            contrast = {}
            for outcome in OUTCOMES:
                result = compare(treated_by_name["delivery_free_fast"], treated_by_name["delivery_paid_slow"], outcome)
                result.update(expected=-1 if outcome == "purchase" else None, scope="all", page=page.key,
                              manipulation="delivery_paid_slow vs delivery_free_fast", outcome=outcome)
                all_tests.append(result)
                contrast[outcome] = result
            page_entry["delivery_paid_slow_vs_free_fast"] = contrast
        page_results.append(page_entry)

    testable = [t for t in all_tests if t["p_value"] is not None]
    reject, adjusted, _, _ = multipletests([t["p_value"] for t in testable], alpha=ALPHA, method="holm")
    for t, p_adj, rej in zip(testable, adjusted, reject):
        t["p_holm"], t["significant"] = float(p_adj), bool(rej)
    for t in all_tests:
        t.setdefault("p_holm", None)
        t.setdefault("significant", False)
        if t.get("expected"):
            t["matches_expected"] = bool(t["significant"] and np.sign(t["diff_points"]) == t["expected"])
    for page_entry in page_results:
        for name, entry in page_entry["manipulations"].items():
            for outcome, result in entry.get("outcomes", {}).items():
                if result.get("expected"):
                    table.append((page_entry["page"], name, outcome, result))
    seconds = time.perf_counter() - started
    print_table(page_results)
    summary = summarise(all_tests)
    write_result("page_sensitivity" if per_persona else "page_sensitivity_shared_seeds", {
        "command": ".venv/bin/python benchmarks/page_sensitivity.py" + (
            f" --instances {args.instances}" if args.instances != 20 else "") + ("" if per_persona else " --seeds instance"),
        "citation": CITATION,
        "seconds": round(seconds, 1),
        "decisions": decisions,
        "twins": {"personas": len(personas), "instances": args.instances, "mode": "sample",
                  "seeds": ("1000000 + 1000 x persona index + instance: its own per persona and instance, the same in every "
                            "variant (common random numbers)") if per_persona else
                           ("1000 + instance, the same for every persona and variant (common random numbers); the "
                            "embedded brain's first uniform draw picks the label, so every persona draws the label "
                            "with the same 20 numbers: rates move in steps near 1/20 and pairs are not independent "
                            "across personas (the default, --seeds persona, gives each its own)"),
                  "memories": "none", "brain": "embedded"},
        "traits": {TRAIT_LABEL[t]: sum(1 for s in sens if getattr(s, t) > 0) for t in TRAIT_LABEL},
        "test": "paired McNemar (agent/experiments/statistics.py _paired_binary) on persona x instance pairs; tests "
                "without a discordant pair are reported with p_value null and left out of the correction",
        "correction": {"method": "holm", "alpha": ALPHA, "n_tests": len(testable),
                       "family": "every test of the run: pages x manipulations x outcomes, all twins and each trait group"},
        "expected_directions": {k: {"overall": v[0], "trait": v[1], "trait_group": TRAIT_EXPECTED.get(k, {})}
                                for k, v in EXPECTED.items()},
        "sources": SOURCES,
        "summary": summary,
        "pages": page_results,
    })


def outcomes_of(name: str, c_labels, t_labels, sens, all_tests: list[dict], page_key: str) -> dict:
    expected, trait = EXPECTED[name]
    results = {}
    for outcome in OUTCOMES:
        result = compare(c_labels, t_labels, outcome)
        result.update(expected=expected.get(outcome), scope="all", page=page_key, manipulation=name, outcome=outcome)
        all_tests.append(result)
        if trait:
            has = np.asarray([getattr(s, trait) > 0 for s in sens])
            groups = {}
            for label, rows in ((TRAIT_LABEL[trait], has), ("not " + TRAIT_LABEL[trait], ~has)):
                group = compare(c_labels, t_labels, outcome, rows)
                in_trait = label == TRAIT_LABEL[trait]
                group.update(n_personas=int(rows.sum()), scope=label, page=page_key, manipulation=name, outcome=outcome,
                             expected=TRAIT_EXPECTED.get(name, {}).get(outcome) if in_trait else None)
                all_tests.append(group)
                groups[label] = group
            result["by_trait"] = groups
        results[outcome] = result
    return results


def summarise(all_tests: list[dict]) -> dict:
    expected = [t for t in all_tests if t.get("expected")]
    return {
        "expected_tests": len(expected),
        "matching": sum(t["matches_expected"] for t in expected),
        "significant_against": sum(1 for t in expected if t["significant"] and np.sign(t["diff_points"]) == -t["expected"]),
        "not_significant": sum(1 for t in expected if not t["significant"]),
        "by_manipulation": {
            f"{m} / {o} / {s}": f"{sum(t['matches_expected'] for t in group)} of {len(group)} pages"
            for (m, o, s) in sorted({(t["manipulation"], t["outcome"], t["scope"]) for t in expected})
            for group in [[t for t in expected if (t["manipulation"], t["outcome"], t["scope"]) == (m, o, s)]]
        },
    }


def print_table(page_results: list[dict]) -> None:
    print(f"{'page':<44} {'manipulation':<19} {'buy c->t (pts)':>22} {'leave c->t (pts)':>22} {'review d':>8}  match")
    for entry in page_results:
        print(f"{entry['page'][:44]:<44} ({entry['origin']}, control buy {entry['control_rates']['purchase']:.3f}"
              f" leave {entry['control_rates']['leave']:.3f} review {entry['control_rates']['review']:.3f})")
        for name, m in entry["manipulations"].items():
            if not m["applied"]:
                print(f"{'':<44} {name:<19} not applied: {m['reason'][:70]}")
                continue
            o = m["outcomes"]

            def cell(r):
                star = "*" if r["significant"] else " "
                return f"{r['control']:.3f}->{r['treatment']:.3f} ({r['diff_points']:+.1f}){star}"
            marks = [f"{k}:{'ok' if r.get('matches_expected') else 'NO'}" for k, r in o.items() if r.get("expected")]
            for group in (o["purchase"].get("by_trait") or {}).values():
                if group.get("expected"):
                    marks.append(f"{group['scope']}:{'ok' if group.get('matches_expected') else 'NO'}")
            print(f"{'':<44} {name:<19} {cell(o['purchase']):>22} {cell(o['leave']):>22} {o['review']['diff_points']:+8.1f}  "
                  + " ".join(marks))


if __name__ == "__main__":
    main()
