"""What a shopper sees on a page, as facts: per product its price (in its currency), list price, rating, reviews,
delivery, stock, sponsored label, badges and options; per page how many products and options it shows, and which
product the page is about (agent/page/own_product.py; the data types are in agent/page/facts_model.py).

Both brains decide from these: the embedded brain weighs them against what the person cares about
(agent/behaviour/page_terms.py), the LLM prompt carries them as a compact block. They are read from the
same parsed tree as the candidates (OPeRA simplified HTML, raw HTML through the simplifier, live pages).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import pairwise

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page import fact_texts
from agent.page.candidate import Candidate
from agent.page.fact_texts import fold
from agent.page.facts_model import PageFacts, ProductFacts
from agent.page.listing_products import flat_listing
from agent.page.money import host_currency
from agent.page.own_product import BUY_BOX, declared_currency, declared_items, merge_card, own_product
from agent.page.product_blocks import (
    ProductBlock,
    elements_by_block,
    product_blocks,
    remove_blocks,
)
from agent.page.product_reading import COUNT_PARTS, common_facts

# --- reading the facts from a parsed page -----------------------------------------------------------------

_TITLE_PARTS = (
    "product_name",
    "product_title",
    "product_detail",
    "product_link",
    "title_link",
    "item_link",
    "title",
    "product_image",
    "image",
)
_MAX_OWN_BUTTONS = 3
_FRAME_SECTIONS = frozenset({"nav_bar", "header", "footer", "cart_side_bar"})
_CHECKOUT = re.compile(r"check_?out|proceed_to|place_order|unsubscribe")
# An order form's own words, anywhere in the name ("form.concludi_l_ordine.acquista"): buying there completes an
# order, it is not the button of one product.
_ORDER_FORM = re.compile(r"concludi_l_ordine|ordine|commande|pedido|bestellung|afrekenen|zamowienie|kasse|order_form")


def read_facts(
    tree: LexborHTMLParser,
    named: list[LexborNode],
    by_name: dict[str, Candidate],
    page_type: str,
    page_title: str = "",
    url: str | None = None,
) -> PageFacts:
    """The facts of a parsed page. `named` is every `[name]` element in document order.

    Consumes `tree`: other products' blocks are removed once read, so on a product page what is left is the
    page's own product.
    """
    names = [node.attributes.get("name") or "" for node in named]
    hint = declared_currency(tree) or host_currency(url)  # what a bare "$" or "kr" on the page stands for
    meta = tree.css_first(".product-meta")
    declared_type = meta.attributes.get("data-page-type") if meta is not None else None
    declared_list = declared_items(meta) if meta is not None else []
    groups, sections = product_blocks(named, names)
    marked = elements_by_block(tree.css(_MARKED), groups) if groups else {}
    grouped: set[str] = set()
    products: list[ProductFacts] = []
    for group in groups:
        marks = _marks(group, marked.get(group.node.mem_id, []))
        product = _group_facts(group, marks, by_name, hint)
        if group.card and product.price is None:
            continue
        grouped.update(marks.names)
        products.append(product)
    a_list = False  # the page reads as a list of priced products
    flat_titles: set[str] = set()
    first_listed = 0  # where the first listed product's title stands among the candidates
    named_results = any(not group.card for group in groups)  # OPeRA's results, named as such: the list is known
    if page_type in ("search_results", "other") and not named_results:  # a list the page does not set apart
        flat = flat_listing(tree, by_name, hint)
        a_list = len(flat) >= 2 and len(flat) > sum(p.price is not None for p in products)
        if a_list:  # it reads more than the named blocks: it is the list (and their few cards were part of it)
            products = flat
            grouped.update(name for p in flat for name in (p.name, *p.buy_names) if name)
            flat_titles = {p.title.casefold() for p in flat if p.title}
            first_listed = min((by_name[p.name].position for p in flat if p.name in by_name), default=0)
    page_buy = tuple(c.name for c in by_name.values() if c.click_type == "purchase" and c.name not in grouped)
    if page_type == "cart":  # checking out buys what the cart holds, not what is saved for later
        products = [p if _saved_for_later(p) else replace(p, buy_names=p.buy_names + page_buy) for p in products]
    options = sum(
        1 for c in by_name.values() if c.click_type == "product_option" and c.name.startswith("product_option")
    )
    focus: int | None = None
    own_buy = tuple(name for name in page_buy if _buys_one_product(name))
    declared = declared_type == "product"  # the page says it is about one product
    heading = fold(h1.text(deep=True, separator=" ")) if (h1 := tree.css_first("h1")) is not None else ""
    titled = _card_titled(products, heading)  # a card titled as the page: the page's product beside others
    if (
        a_list
        and flat_titles
        and _one_products_buttons(own_buy)
        and all(by_name[name].position < first_listed for name in own_buy)
        and heading.casefold() not in flat_titles
        and _bought_under_heading(tree, heading, [by_name[name].text for name in own_buy], hint)
    ):  # the heading, its price and its buy button, before the list and none of it: the list recommends
        a_list = False
    a_list = (a_list or (bool(own_buy) and not _one_products_buttons(own_buy))) and titled is None
    says_so = page_type == "product" or (
        page_type == "other"
        and declared_type != "listing"
        and (declared or (_one_products_buttons(own_buy) and not a_list))
    )
    if says_so or (page_type == "other" and heading and not a_list):  # any shop's product page
        remove_blocks([g.node for g in groups] + sections)
        own = own_product(tree, by_name, own_buy, options, page_title, wide=bool(says_so))
        card = titled if own.price is None else None
        if card is not None:  # the page's own product, laid out as a card: its price and stock are the card's
            own = merge_card(own, products.pop(card))
        if says_so:
            shown = (
                own.price is not None or own.buy_names or own.rating is not None or own.option_count or own.availability
            )  # else no product is shown (an error page, a bot check at a product URL)
        else:  # no buy button: a product page says its own price and stock (sold out), a listing does not
            shown = own.price is not None and own.availability is not None
        if shown:
            products.insert(0, own)
            focus = 0
    if focus is None and len(declared_list) >= 2 and len(declared_list) > sum(p.price is not None for p in products):
        products = declared_list  # a list the page declares for machines and shows in a form its reader misses
    return PageFacts(
        products=tuple(products),
        focus=focus,
        option_count=options,
        reviews_shown=any(p.rating is not None or p.review_count is not None for p in products)
        or any(c.click_type == "review" for c in by_name.values()),
        search_box=any(c.kind == "input" and c.click_type == "search" for c in by_name.values()),
        can_buy=any(p.buy_names and p.availability != "unavailable" for p in products),
        notes=tuple(f"no price: {p.title[:60]}" for p in products if p.price is None)
        + tuple(note for p in products for note in p.disagreements),
        currency=_page_currency(products, focus, hint),
    )


def _bought_under_heading(tree: LexborHTMLParser, heading: str, buy_texts: list[str], hint: str | None) -> bool:
    """The page's heading is followed, within a product's buy box, by a price and then a buy button: one product's
    page, whatever it lists after."""
    body = tree.body
    text = fold(body.text(deep=True, separator=" ")) if body is not None and heading else ""
    start = text.find(heading) if text else -1
    if start < 0:
        return False
    start += len(heading)
    ends = [at for label in buy_texts if label and (at := text.find(label, start, start + BUY_BOX)) >= 0]
    return bool(ends) and fact_texts.price_to_pay(text[start : min(ends)], hint) is not None


def _card_titled(products: list[ProductFacts], heading: str) -> int | None:
    """The card whose title is the page's heading: the product the page is about, not one it recommends."""
    wanted = heading.casefold()
    if len(wanted) < 4:
        return None
    return next(
        (
            i
            for i, p in enumerate(products)
            if p.title
            and (
                p.title.casefold() == wanted
                or (len(p.title) >= 0.8 * len(wanted) and wanted.startswith(p.title.casefold()))
            )
        ),
        None,
    )


def _page_currency(products: list[ProductFacts], focus: int | None, hint: str | None) -> str | None:
    """The page's product's currency, else the declared one, else the one most of its prices are in."""
    if focus is not None and products[focus].currency:
        return products[focus].currency
    counted = Counter(p.currency for p in products if p.currency)
    return hint or (counted.most_common(1)[0][0] if counted else None)


def _buys_one_product(name: str) -> bool:
    """A purchase element for the page's product: not a cart checkout, not an order form's, not in the page's
    header or footer."""
    return (
        name.partition(".")[0] not in _FRAME_SECTIONS
        and not _CHECKOUT.search(name.rpartition(".")[2])
        and not _ORDER_FORM.search(name)
    )


def _one_products_buttons(buy: tuple[str, ...]) -> bool:
    """The buy buttons of one product (add to cart, buy now, subscribe: a few, in one part of the page), not the
    buttons of a list whose products the page does not set apart."""
    parts = sorted({name.rpartition(".")[0] for name in buy}, key=len)  # where each button stands
    return 0 < len(buy) <= _MAX_OWN_BUTTONS and all(inner.startswith(outer) for outer, inner in pairwise(parts))


def _saved_for_later(product: ProductFacts) -> bool:
    return product.name is not None and "saved" in product.name.split(".", 1)[0]


_MARKED = (
    "[aria-label], img[alt], .product-brand, .product-delivery, .product-list-price, .a-text-price, .basisPrice, "
    ".product-price, .product-rating-count"
)
_MARK_CLASSES = (
    ("product-brand", "brand"),
    ("product-delivery", "delivery"),
    ("product-list-price", "struck"),
    ("a-text-price", "struck"),
    ("basisPrice", "struck"),
    ("product-price", "price"),
    ("product-rating-count", "count"),
)


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


def _group_facts(group: ProductBlock, marks: _Marks, by_name: dict[str, Candidate], hint: str | None) -> ProductFacts:
    node = group.node
    text = fold(node.text(deep=True, separator=" "))
    labels = fold(" ".join(marks.labels))
    candidates = [by_name[n] for n in marks.names if n in by_name]
    link = _title_candidate(group, by_name)
    price = next(
        (
            found
            for c in candidates
            if c.name.endswith(".product_price")
            and c.price is not None
            and (found := fact_texts.first_price(c.text, hint)) is not None
        ),
        None,
    )
    if price is None:
        price = fact_texts.first_price(marks.text("price"), hint)
    count = next(
        (
            counted
            for c in candidates
            if c.name.rpartition(".")[2] in COUNT_PARTS
            and (counted := fact_texts.review_count(c.text, bare=True)) is not None
        ),
        None,
    )
    if count is None:
        count = fact_texts.review_count(marks.text("count"), bare=True)
    struck = marks.text("struck")
    return common_facts(
        text=text,
        labels=labels,
        title=_title_from(link.text if link else "", node),
        name=link.name if link else None,
        brand=marks.text("brand") or fact_texts.brand(text),
        price=price if price is not None else fact_texts.price_to_pay(text, hint),
        list_price=fact_texts.first_price(struck, hint) if struck else fact_texts.list_price(text, hint),
        review_count=count,
        option_count=sum(1 for c in candidates if c.click_type == "product_option"),
        buy_names=tuple(c.name for c in candidates if c.click_type == "purchase"),
        delivery_text=marks.text("delivery") or text,
        stock_text=text,
    )


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
