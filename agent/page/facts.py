"""What a shopper sees on a page, as facts: per product its price, list price, rating, reviews, delivery,
stock, sponsored label, badges and options; per page how many products and options it shows.

Both brains decide from these: the embedded brain weighs them against what the person cares about
(agent/behaviour/page_terms.py), the LLM prompt carries them as a compact block. They are read from the
same parsed tree as the candidates (OPeRA simplified HTML, raw HTML through the simplifier, live pages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page import fact_texts
from agent.page.candidate import Candidate
from agent.page.fact_texts import fold
from agent.page.product_blocks import (
    ProductBlock,
    elements_by_block,
    product_blocks,
    remove_blocks,
)

Availability = Literal["in_stock", "low_stock", "unavailable"]


@dataclass(frozen=True, slots=True)
class ProductFacts:
    """One product in view. None means the page does not say."""

    title: str
    name: str | None = None               # the candidate that opens it (a product link); None for the page's own product
    brand: str | None = None
    price: float | None = None
    list_price: float | None = None       # the struck-through "List Price" / "Was" price, when shown
    rating: float | None = None           # stars out of 5
    review_count: int | None = None       # 0 when the page says there are no reviews
    delivery_free: bool | None = None
    delivery_fee: float | None = None     # dollars, when a paid delivery is shown
    delivery_days: int | None = None      # days until it arrives when the page says it relatively (today 0, tomorrow 1)
    availability: Availability | None = None
    stock_left: int | None = None         # "Only 3 left in stock" -> 3
    sponsored: bool = False
    badges: tuple[str, ...] = ()          # best_seller, amazons_choice, limited_time_deal, deal, coupon
    option_count: int = 0                 # choices offered for this product (size, colour ...)
    buy_names: tuple[str, ...] = ()       # candidates that buy it (add to cart, buy now)

    @property
    def discount(self) -> float | None:
        """Share off the list price (0.2 = 20% off), when both prices are shown and the price is lower."""
        if self.price is None or not self.list_price or self.list_price <= 0:
            return None
        return max(0.0, (self.list_price - self.price) / self.list_price)


@dataclass(frozen=True, slots=True)
class PageFacts:
    """The facts of one page. `focus` indexes the product the page is about (a product page), else None."""

    products: tuple[ProductFacts, ...] = ()
    focus: int | None = None
    option_count: int = 0                 # option choices on the page (product_options.*)
    reviews_shown: bool = False           # the page shows ratings or reviews for some product
    search_box: bool = False
    can_buy: bool = False                 # some purchase element for a product that is not unavailable
    notes: tuple[str, ...] = field(default=())  # what could not be read, for audits

    @property
    def focus_product(self) -> ProductFacts | None:
        return self.products[self.focus] if self.focus is not None else None

    def alternatives(self) -> tuple[ProductFacts, ...]:
        """Every product in view but the one the page is about."""
        return tuple(p for i, p in enumerate(self.products) if i != self.focus)


NO_FACTS = PageFacts()


# --- reading the facts from a parsed page -----------------------------------------------------------------

_TITLE_PARTS = ("product_name", "product_title", "product_detail", "product_link", "title_link", "item_link",
                "title", "product_image", "image")
_COUNT_PARTS = frozenset({"reviews", "review_count", "ratings", "rating_count"})
# Parts of a product page that are about the shop, not the product on sale.
_NOT_THE_PRODUCT = ("[name=nav_bar], [role=navigation], nav, header, footer, [name=breadcrumbs], "
                    "[name=refinements], [name=cart_side_bar]")
_REVIEW_BODIES = "div.review, [data-hook=review]"
_FRAME_SECTIONS = frozenset({"nav_bar", "header", "footer", "cart_side_bar"})
_CHECKOUT = re.compile(r"check_?out|proceed_to|place_order|unsubscribe")
_STORE_PREFIXES = ("Amazon.com:", "Amazon.com :", "TwinShop.com:")


def read_facts(tree: LexborHTMLParser, named: list[LexborNode], by_name: dict[str, Candidate],
               page_type: str, page_title: str = "") -> PageFacts:
    """The facts of a parsed page. `named` is every `[name]` element in document order.

    Consumes `tree`: other products' blocks are removed once read, so on a product page what is left is the
    page's own product.
    """
    names = [node.attributes.get("name") or "" for node in named]
    groups, sections = product_blocks(named, names)
    marked = elements_by_block(tree.css(_MARKED), groups) if groups else {}
    grouped: set[str] = set()
    products: list[ProductFacts] = []
    for group in groups:
        marks = _marks(group, marked.get(group.node.mem_id, []))
        product = _group_facts(group, marks, by_name)
        if group.card and product.price is None:
            continue
        grouped.update(marks.names)
        products.append(product)
    page_buy = tuple(c.name for c in by_name.values() if c.click_type == "purchase" and c.name not in grouped)
    if page_type == "cart":  # checking out buys what the cart holds, not what is saved for later
        products = [p if _saved_for_later(p) else replace(p, buy_names=p.buy_names + page_buy) for p in products]
    options = sum(1 for c in by_name.values() if c.click_type == "product_option" and c.name.startswith("product_option"))
    focus: int | None = None
    own_buy = tuple(name for name in page_buy if _buys_one_product(name))
    declared = tree.css_first(".product-meta") is not None  # the page says it is about one product
    says_so = page_type == "product" or page_type == "other" and bool(own_buy or declared)
    if says_so or page_type == "other" and tree.css_first("h1") is not None:  # any shop's product page
        remove_blocks([g.node for g in groups] + sections)
        own = _focus_facts(tree, by_name, own_buy, options, page_title)
        if says_so:
            shown = own.price is not None or own.buy_names or own.rating is not None or own.option_count \
                or own.availability  # else no product is shown (an error page, a bot check at a product URL)
        else:  # no buy button: a product page says its own price and stock (sold out), a listing does not
            shown = own.price is not None and own.availability is not None
        if shown:
            products.insert(0, own)
            focus = 0
    return PageFacts(
        products=tuple(products),
        focus=focus,
        option_count=options,
        reviews_shown=any(p.rating is not None or p.review_count for p in products)
        or any(c.click_type == "review" for c in by_name.values()),
        search_box=any(c.kind == "input" and c.click_type == "search" for c in by_name.values()),
        can_buy=any(p.buy_names and p.availability != "unavailable" for p in products),
        notes=tuple(f"no price: {p.title[:60]}" for p in products if p.price is None),
    )


def _buys_one_product(name: str) -> bool:
    """A purchase element for the page's product: not a cart checkout, not in the page's header or footer."""
    return name.partition(".")[0] not in _FRAME_SECTIONS and not _CHECKOUT.search(name.rpartition(".")[2])


def _saved_for_later(product: ProductFacts) -> bool:
    return bool(product.name) and "saved" in product.name.split(".", 1)[0]


_MARKED = ("[aria-label], img[alt], .product-brand, .product-delivery, .product-list-price, .a-text-price, .basisPrice, "
           ".product-price, .product-rating-count")
_MARK_CLASSES = (("product-brand", "brand"), ("product-delivery", "delivery"), ("product-list-price", "struck"),
                 ("a-text-price", "struck"), ("basisPrice", "struck"), ("product-price", "price"),
                 ("product-rating-count", "count"))


@dataclass(slots=True)
class _Marks:
    """A product block's names, labels, and the first element of each marked kind."""

    names: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    first: dict[str, LexborNode] = field(default_factory=dict)

    def text(self, kind: str) -> str:
        node = self.first.get(kind)
        return fold(node.text(deep=True, separator=" ")) if node is not None else ""


def _marks(group: ProductBlock, inside: list[LexborNode]) -> _Marks:
    marks = _Marks(names=list(dict.fromkeys(group.links + group.parts)))
    for node in inside:
        attrs = node.attributes
        if label := attrs.get("aria-label") or attrs.get("alt"):
            marks.labels.append(label)
        if classes := attrs.get("class"):
            for marker, kind in _MARK_CLASSES:
                if marker in classes:
                    marks.first.setdefault(kind, node)
    return marks


def _group_facts(group: ProductBlock, marks: _Marks, by_name: dict[str, Candidate]) -> ProductFacts:
    node = group.node
    text = fold(node.text(deep=True, separator=" "))
    labels = fold(" ".join(marks.labels))
    candidates = [by_name[n] for n in marks.names if n in by_name]
    link = _title_candidate(group, by_name)
    price = next((c.price for c in candidates if c.name.endswith(".product_price") and c.price is not None), None)
    if price is None:
        price = fact_texts.parse_price(marks.text("price"))
    count = next((found for c in candidates if c.name.rpartition(".")[2] in _COUNT_PARTS
                  and (found := fact_texts.review_count(c.text, bare=True)) is not None), None)
    if count is None:
        count = fact_texts.review_count(marks.text("count"), bare=True)
    struck = marks.text("struck")
    return _common_facts(
        text=text, labels=labels,
        title=_title_from(link.text if link else "", node),
        name=link.name if link else None,
        brand=marks.text("brand") or fact_texts.brand(text),
        price=price if price is not None else fact_texts.price_to_pay(text),
        list_price=fact_texts.parse_price(struck) if struck else fact_texts.list_price(text),
        review_count=count,
        option_count=sum(1 for c in candidates if c.click_type == "product_option"),
        buy_names=tuple(c.name for c in candidates if c.click_type == "purchase"),
        delivery_text=marks.text("delivery") or text,
        stock_text=text,
    )


def _common_facts(*, text: str, labels: str, title: str, name: str | None, brand: str | None,
                  price: float | None, list_price: float | None, review_count: int | None, option_count: int,
                  buy_names: tuple[str, ...], delivery_text: str, stock_text: str) -> ProductFacts:
    """Facts read the same way for every product: from its block's text, labels and marked elements."""
    shown = text + " " + labels
    if len(title) > 3:  # a title may itself say "Deal" or "Best Seller": only what is shown around it counts
        shown = shown.replace(title, " ")
    free, fee, days = fact_texts.delivery(delivery_text)
    availability, left = fact_texts.availability(stock_text)
    if review_count is None:
        review_count = fact_texts.review_count(labels) or fact_texts.review_count(text)
    return ProductFacts(
        title=title, name=name, brand=brand, price=price, list_price=list_price,
        rating=fact_texts.rating(labels) or fact_texts.rating(text), review_count=review_count,
        delivery_free=free, delivery_fee=fee, delivery_days=days, availability=availability, stock_left=left,
        sponsored=fact_texts.sponsored(shown), badges=fact_texts.badges(shown),
        option_count=option_count, buy_names=buy_names)


def _focus_facts(tree: LexborHTMLParser, by_name: dict[str, Candidate], page_buy: tuple[str, ...], options: int,
                 page_title: str) -> ProductFacts:
    """The product a product page is about: the page once other products, navigation and reviews are gone."""
    for node in reversed(tree.css(_NOT_THE_PRODUCT)):
        node.decompose()
    declared = tree.css_first(".product-meta")  # the page's metadata: only where the page itself says nothing
    declared_price = fact_texts.parse_price(_text_of(declared, ".product-price"))
    declared_stock = _text_of(declared, ".availability")
    if declared is not None:
        declared.decompose()
    labels = " ".join(fold(n.attributes.get("aria-label") or n.attributes.get("title") or "")
                      for n in tree.css("[name^=reviews], #acrPopover, .product-rating"))
    labels += " " + " ".join(_text_of(tree, s) for s in ("[name='reviews.star_rating']", ".product-rating"))
    count = _count_of(tree, [c for name, c in by_name.items() if name in _COUNT_PARTS])
    title = (_text_of(tree, "#productTitle, [name=product_title], .product-title") or _text_of(tree, "h1")
             or _strip_store(page_title))
    byline = _text_of(tree, "[name=brand_store], .product-byline, #bylineInfo")
    price = fact_texts.parse_price(_text_of(tree, "[name=product_price], .product-price, .priceToPay"))
    for node in reversed(tree.css(_REVIEW_BODIES)):
        node.decompose()
    body = tree.css_first("main, [role=main]") or tree.body or tree.root  # not the shop's banners around it
    text = fold(body.text(deep=True, separator=" ")) if body is not None else ""
    buybox = _text_of(tree, "[name=buybox], #buybox, .buybox")
    stock = _text_of(tree, "#availability, .availability")
    for fallback in (buybox, text, declared_stock):
        if fact_texts.availability(stock)[0] is not None:
            break
        stock = fallback
    delivery = _text_of(tree, ".product-delivery")
    if fact_texts.delivery(delivery)[0] is None:
        delivery = buybox if fact_texts.delivery(buybox)[0] is not None else text
    struck = _text_of(tree, ".product-list-price, .a-text-price, .basisPrice")
    facts = _common_facts(
        text=text, labels=labels, title=title[:200], name=None,
        list_price=fact_texts.parse_price(struck) if struck else fact_texts.list_price(text),
        brand=fact_texts.brand(byline) or byline or fact_texts.brand(text) or None,
        price=next((p for p in (price, fact_texts.parse_price(buybox), fact_texts.labelled_price(text), declared_price,
                                _price_under_title(text, title)) if p is not None), None),
        review_count=count,
        option_count=options, buy_names=page_buy, delivery_text=delivery, stock_text=stock)
    return replace(facts, sponsored=False)  # ads on a product page are for other products


def _price_under_title(text: str, title: str) -> float | None:
    """The price shown right under the product's title, as many shops place it, when nothing labels it: the
    amount that comes next after the title ("Canvas Backpack $64.00 In stock"), not one further on ("Earn $25 back")."""
    at = text.find(title) if len(title) > 3 else -1
    if at < 0:
        return None
    return fact_texts.leading_price(text[at + len(title):at + len(title) + 40])


def _title_candidate(group: ProductBlock, by_name: dict[str, Candidate]) -> Candidate | None:
    links = [by_name[n] for n in group.links if n in by_name]
    for part in _TITLE_PARTS:
        for candidate in links:
            if candidate.name.endswith("." + part) and candidate.text:
                return candidate
    return links[0] if links else None


def _title_from(link_text: str, node: LexborNode) -> str:
    """The link's text up to its first price ("Belkin Cable, 6ft $19.99" -> "Belkin Cable, 6ft"), else the
    image's alt without its ad label."""
    title = link_text.split("$", 1)[0].strip() or link_text
    if not title:
        image = node if node.tag == "img" else node.css_first("img[alt]")
        title = fold(image.attributes.get("alt") if image is not None else "")
    return fact_texts.without_ad_label(title)[:200]


def _count_of(scope: LexborNode | LexborHTMLParser, candidates: list[Candidate]) -> int | None:
    """The review count from the element that shows it: a named `reviews` element or a rating-count text."""
    for candidate in candidates:
        if candidate.name.rpartition(".")[2] in _COUNT_PARTS:
            node = scope.css_first(f'[name="{candidate.name}"]')
            label = (node.attributes.get("aria-label") or "") if node is not None else ""
            found = fact_texts.review_count(label, bare=True) or fact_texts.review_count(candidate.text, bare=True)
            if found is not None:
                return found
    for selector in (".product-rating-count", "#acrCustomerReviewText", "[data-hook=total-review-count]"):
        found = fact_texts.review_count(_text_of(scope, selector), bare=True)
        if found is not None:
            return found
    return None


def _text_of(scope: LexborNode | LexborHTMLParser | None, selector: str) -> str:
    node = scope.css_first(selector) if scope is not None else None
    return fold(node.text(deep=True, separator=" ")) if node is not None else ""


def _strip_store(title: str) -> str:
    for prefix in _STORE_PREFIXES:
        if title.startswith(prefix):
            return title[len(prefix):].strip()
    return title
