"""The product a product page is about, read from what is left of the page once other products, navigation and
reviews are gone, and from what the page declares for machines (structured data, OpenGraph; carried in the
simplified page's `.product-meta`, agent/page/simplifier/product_meta.py).

Declared facts come first: they are the one reading that needs no knowledge of the shop's layout or language. The
visible page fills in what they leave out; where both say a price and they disagree, the page's notes say so.
Every fact keeps where it was read (`ProductFacts.sources`), and the price its currency.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page import fact_texts
from agent.page.candidate import Candidate
from agent.page.fact_texts import fold
from agent.page.facts_model import ProductFacts
from agent.page.money import Money, parse_amount
from agent.page.product_reading import COUNT_PARTS, common_facts

# Parts of a product page that are about the shop, not the product on sale.
_NOT_THE_PRODUCT = (
    "[name=nav_bar], [role=navigation], nav, header, footer, [name=breadcrumbs], "
    "[name=refinements], [name=cart_side_bar]"
)
_REVIEW_BODIES = "div.review, [data-hook=review]"
# The product's stock line where the page marks it (Amazon's #availability, "availability-box", "product-availability")
_STOCK_LINES = "#availability, .availability, [class*=availability], [id*=availability]"
_STORE_PREFIXES = ("Amazon.com:", "Amazon.com :", "TwinShop.com:")
_STRUCTURED = frozenset({"json-ld", "microdata", "rdfa"})
_AFTER_TITLE = 300  # characters after the title that hold its price on the shops in the data
BUY_BOX = 600  # characters from a product page's heading to its buy button, past its price, bids, stock and options
_BEFORE_BUYING = 80  # characters before the buy button that hold the price it buys at
_RIGHT_AFTER = 40  # on a page that does not say it is a product page: the amount right after the title only
_TITLE_REPEATS = 8
_REWARD = re.compile(r"\s*(?:back|off|bonus|бонус|reward|cashback|in rewards|points)", re.IGNORECASE)


def declared_currency(tree: LexborHTMLParser) -> str | None:
    """The currency the page declares for its product, the hint for a bare "$" or "kr" on the page."""
    meta = tree.css_first(".product-meta")
    return (meta.attributes.get("data-currency") or None) if meta is not None else None


def own_product(
    tree: LexborHTMLParser,
    by_name: dict[str, Candidate],
    page_buy: tuple[str, ...],
    options: int,
    page_title: str,
    wide: bool = True,
) -> ProductFacts:
    """The product a product page is about: what the page declares, then the page once other products, navigation
    and reviews are gone. With `wide` (the page says it is a product page: its address, a buy button, a
    declaration) the price under the title may stand a few lines below it; else it must come right after it."""
    for node in reversed(tree.css(_NOT_THE_PRODUCT)):
        node.decompose()
    declared = _declared(tree.css_first(".product-meta"))
    hint = declared.get("currency")
    labels = " ".join(
        fold(n.attributes.get("aria-label") or n.attributes.get("title") or "")
        for n in tree.css("[name^=reviews], #acrPopover, .product-rating")
    )
    labels += " " + " ".join(_text_of(tree, s) for s in ("[name='reviews.star_rating']", ".product-rating"))
    count = _count_of(tree, [c for name, c in by_name.items() if name in COUNT_PARTS])
    title = (
        _text_of(tree, "#productTitle, [name=product_title], .product-title")
        or _heading_naming(tree, declared.get("name"))
        or declared.get("name")
        or _strip_store(page_title)
    )
    byline = _text_of(tree, "[name=brand_store], .product-byline, #bylineInfo")
    price = fact_texts.first_price(_text_of(tree, "[name=product_price], .product-price, .priceToPay"), hint)
    for node in reversed(tree.css(_REVIEW_BODIES)):
        node.decompose()
    body = tree.css_first("main, [role=main]") or tree.body or tree.root  # not the shop's banners around it
    text = fold(body.text(deep=True, separator=" ")) if body is not None else ""
    buybox = _text_of(tree, "[name=buybox], #buybox, .buybox")
    stock_line = next((t for t in _texts_of(body, _STOCK_LINES) if fact_texts.availability(t)[0] is not None), "")
    stock = stock_line or (buybox if fact_texts.availability(buybox)[0] is not None else text)
    delivery = _text_of(tree, ".product-delivery")
    if fact_texts.delivery(delivery)[0] is None:
        delivery = buybox if fact_texts.delivery(buybox)[0] is not None else text
    struck = _text_of(tree, ".product-list-price, .a-text-price, .basisPrice")
    shown = common_facts(
        text=text,
        labels=labels,
        title=title[:200],
        name=None,
        list_price=fact_texts.first_price(struck, hint) if struck else fact_texts.list_price(text, hint),
        brand=fact_texts.brand(byline) or byline or fact_texts.brand(text) or declared.get("brand"),
        price=next(
            (
                p
                for p in (
                    price,
                    fact_texts.first_price(buybox, hint),
                    fact_texts.labelled_price(text, hint),
                    _price_under_title(text, title, hint, _AFTER_TITLE if wide else _RIGHT_AFTER),
                    _price_before_buying(text, title, [by_name[n].text for n in page_buy if n in by_name], hint),
                )
                if p is not None
            ),
            None,
        ),
        review_count=count,
        option_count=options,
        buy_names=page_buy,
        delivery_text=delivery,
        stock_text=stock,
    )
    bid = None
    if declared.get("price"):  # an auction declares where the bidding started; its bid is shown under the title
        start = max(0, text.find(title)) if title else 0
        bid = fact_texts.current_bid(text[start : start + BUY_BOX], hint)
    own = _with_declared(shown, declared, stock_line=bool(stock_line), bid=bid)
    return replace(own, sponsored=False)  # ads on a product page are for other products


def merge_card(own: ProductFacts, card: ProductFacts) -> ProductFacts:
    """The page's own product where the page lays it out as a card: the card's price, list price, stock, rating and
    reviews, with what the page declares still first (`own` holds the declared facts)."""
    declared = {fact: source for fact, source in own.sources if source != "visible"}
    changes: dict[str, Any] = {"sources": tuple({**dict(card.sources), **declared}.items())}
    if "price" not in declared:
        changes.update(price=card.price, list_price=card.list_price, currency=card.currency)
    if "availability" not in declared and card.availability is not None:
        changes.update(availability=card.availability, stock_left=card.stock_left)
    for fact in ("rating", "review_count", "delivery_free", "delivery_fee", "delivery_days"):
        if getattr(own, fact) is None:
            changes[fact] = getattr(card, fact)
    changes["buy_names"] = own.buy_names or card.buy_names
    return replace(own, **changes)


def declared_items(meta: LexborNode) -> list[ProductFacts]:
    """The products of a list the page declares (`.declared-item` in `.product-meta`), each with its declared
    facts; none opens by a candidate of its own."""
    items = []
    for node in meta.css(".declared-item"):
        declared = _data_of(node)
        items.append(_with_declared(ProductFacts(title=declared.get("name", "")[:200]), declared))
    return items


def _declared(meta: LexborNode | None) -> dict[str, str]:
    """The declared product's facts (data-* of `.product-meta`), and the element gone from the page's text."""
    if meta is None:
        return {}
    found = _data_of(meta)
    meta.decompose()
    return found


def _data_of(node: LexborNode) -> dict[str, str]:
    """A declared product's facts, from the `data-*` attributes the simplifier wrote (simplifier/product_meta.py)."""
    return {key[5:]: value for key, value in node.attributes.items() if key.startswith("data-") and value}


def _with_declared(
    shown: ProductFacts, declared: dict[str, str], *, stock_line: bool = False, bid: Money | None = None
) -> ProductFacts:
    """Declared price, currency, stock, rating and reviews first; the visible page's where nothing is declared.
    Where the page shows another price or stock than it declares, `disagreements` says so. An auction whose
    current bid (`bid`, read after the title) is above the declared price sells at the bid: shops declare where the
    bidding started.

    Two shown stocks outweigh a declared one: a low stock (it says more), and, when the shown stock was read from
    the page's own marked stock line (`stock_line`), "unavailable": a shopper reads the line, where data may not be
    kept up to date."""
    source = declared.get("source")
    if not source:
        return shown
    where = "structured_data" if source in _STRUCTURED else "meta"
    changes: dict[str, Any] = {}
    sources = dict(shown.sources)
    price = parse_amount(declared.get("price"))
    disagree = []
    if price is not None and _declares_the_old_price(shown, price, declared.get("currency")):
        disagree.append(f"price: {source} says {price:.2f}, the price the page shows struck through before a discount")
        price = None  # the page's price is the one it shows after the discount, the declared one its list price
    if price is not None and bid is not None and _bids_beyond(bid, price, declared.get("currency")):
        disagree.append(f"price: {source} says {price:.2f}, an auction whose bids have reached {bid.amount:.2f}")
        shown = replace(shown, price=bid.amount, currency=bid.currency or declared.get("currency"), list_price=None)
        sources["price"] = "visible"
        price = None  # the price to pay now is the current bid; the declared one is where the bidding started
    if price is not None:
        currency = declared.get("currency") or shown.currency
        changes.update(price=price, currency=currency)
        sources["price"] = where
        if shown.price is not None and (abs(shown.price - price) > 0.005 or shown.currency != currency):
            disagree.append(
                f"price: {source} says {price:.2f} {currency or ''}, the page shows "
                f"{shown.price:.2f} {shown.currency or ''}"
            )
        if shown.list_price is not None and (shown.currency != currency or shown.list_price <= price):
            changes["list_price"] = None  # struck through beside another price, or not above this one
    stock = declared.get("availability")
    if stock in ("in_stock", "unavailable") and shown.availability != "low_stock":
        if shown.availability is not None and shown.availability != stock:
            disagree.append(f"availability: {source} says {stock}, the page shows {shown.availability}")
        line_says_otherwise = stock_line and shown.availability == "unavailable" and stock == "in_stock"
        if not line_says_otherwise:
            changes["availability"] = stock
            sources["availability"] = where
    if (rating := parse_amount(declared.get("rating"))) is not None and shown.rating is None:
        changes["rating"] = rating
    if (count := parse_amount(declared.get("review-count"))) is not None and shown.review_count is None:
        changes["review_count"] = int(count)
    changes["sources"] = tuple(sources.items())
    changes["disagreements"] = tuple(disagree)
    return replace(shown, **changes)


def _bids_beyond(bid: Money, declared: float, currency: str | None) -> bool:
    """The page shows an auction's current bid above the price it declares (where the bidding started)."""
    return bid.amount > declared + 0.005 and (currency is None or bid.currency in (None, currency))


def _declares_the_old_price(shown: ProductFacts, declared: float, currency: str | None) -> bool:
    """The page declares the price it shows struck through before a discount ("EUR219.99 -50% EUR110.00" beside a
    declared 219.99): a stale or regular price, not the one the product sells at."""
    return (
        shown.price is not None
        and shown.list_price is not None
        and abs(shown.list_price - declared) < 0.005
        and shown.price < declared
        and (currency is None or shown.currency == currency)
    )


def _price_under_title(text: str, title: str, hint: str | None, within: int) -> Money | None:
    """The price shown under the product's title, as most shops place it, when nothing labels it: the first amount
    after the title ("Canvas Backpack $64.00 In stock", "Bralne leče ... Dobavljivo 40.00€") that is not a struck
    list price nor a reward ("Earn $25 back", "+ 448 bonus")."""
    at = text.find(title) if len(title) > 3 else -1
    for _ in range(_TITLE_REPEATS):  # the title repeats in image alts and breadcrumbs: the price follows one of them
        if at < 0:
            return None
        start = at + len(title)
        if (found := fact_texts.price_to_pay(text[start : start + within], hint, skip=_REWARD)) is not None:
            return found
        at = text.find(title, start)
    return None


def _price_before_buying(text: str, title: str, buy_texts: list[str], hint: str | None) -> Money | None:
    """The price shown right before the product's own buy button, past its title: where a long description parts
    the price from the title, the price still stands beside the button that buys at it."""
    start = max(0, text.find(title)) if title else 0
    for label in buy_texts:
        at = text.find(label, start) if label else -1
        if at > start:
            return fact_texts.price_to_pay(text[max(start, at - _BEFORE_BUYING) : at], hint, skip=_REWARD)
    return None


def _count_of(scope: LexborNode | LexborHTMLParser, candidates: list[Candidate]) -> int | None:
    """The review count from the element that shows it: a named `reviews` element or a rating-count text."""
    for candidate in candidates:
        if candidate.name.rpartition(".")[2] in COUNT_PARTS:
            node = scope.css_first(f'[name="{candidate.name}"]')
            label = (node.attributes.get("aria-label") or "") if node is not None else ""
            found = fact_texts.review_count(label, bare=True)
            if found is None:  # not `or`: "0 reviews" in the label is a count
                found = fact_texts.review_count(candidate.text, bare=True)
            if found is not None:
                return found
    for selector in (".product-rating-count", "#acrCustomerReviewText", "[data-hook=total-review-count]"):
        found = fact_texts.review_count(_text_of(scope, selector), bare=True)
        if found is not None:
            return found
    return None


def _heading_naming(tree: LexborHTMLParser, name: str | None) -> str:
    """The page's first heading; where the page declares its product's name, the first heading that shares a word
    with it (a cart panel's "Your basket is empty" heading may come first), else none (the declared name then)."""
    headings = [text for node in tree.css("h1") if (text := fold(node.text(deep=True, separator=" ")))]
    if not name:
        return headings[0] if headings else ""
    wanted = set(re.findall(r"[^\W_]{3,}", name.casefold()))
    return next((h for h in headings if wanted & set(re.findall(r"[^\W_]{3,}", h.casefold()))), "")


def _texts_of(scope: LexborNode | LexborHTMLParser | None, selector: str, most: int = 8) -> list[str]:
    return [fold(node.text(deep=True, separator=" ")) for node in (scope.css(selector) if scope else [])[:most]]


def _text_of(scope: LexborNode | LexborHTMLParser | None, selector: str) -> str:
    node = scope.css_first(selector) if scope is not None else None
    return fold(node.text(deep=True, separator=" ")) if node is not None else ""


def _strip_store(title: str) -> str:
    for prefix in _STORE_PREFIXES:
        if title.startswith(prefix):
            return title[len(prefix) :].strip()
    return title
