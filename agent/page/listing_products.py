"""Products of a listing whose cards the page does not set apart: a run of "title link, then its price" in document
order, as many shops' category and search pages come out of the generic simplifier (no card container, no product
names, each product a link followed by a line with its price).

Read only where the named product blocks (agent/page/product_blocks.py) found fewer than two priced products on a page
that is not a product page, cart or checkout. A title is a link that reads as words (not a number, a price, a filter
or a page link); its price is the first amount after it that is not a struck list price, a saving, a fee or a unit
price, before the next title.
"""

from __future__ import annotations

import re
from itertools import pairwise

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page.candidate import Candidate
from agent.page.fact_texts import fold
from agent.page.facts_model import ProductFacts
from agent.page.money import Money, find_money
from agent.page.product_reading import common_facts

_TITLE_TYPES = frozenset({"product_link", "other"})
_ENDS_A_CARD = frozenset({"filter", "page_related", "nav_bar", "search", "suggested_term", "cart_side_bar"})
_FRAME = frozenset({"header", "nav", "nav_bar", "footer", "breadcrumbs", "refinements"})
_MIN_TITLE = 6
_AFTER = 300  # characters after a title that hold its price
# Amounts that are not the price to pay: a saving, a fee, a unit price, a threshold ("free over £50"), an option's
# surcharge.
_NOT_THE_PRICE_AFTER = re.compile(
    r"\s*(?:/|per\b|each\b|a month|/mo|shipping|delivery|versand|livraison|off\b)", re.IGNORECASE
)
_NOT_THE_PRICE_BEFORE = re.compile(
    r"(?:save|saving|you save|sparen|économisez|ahorra|risparmi|over|ab|from orders|"
    r"spend|was|list|rrp|uvp|statt|reg\.?)\s*:?\s*$|"
    r"\(\s*[-+\u2212]\s*$",  # what an option adds or takes off ("Without lenses (-40.00€)")
    re.IGNORECASE,
)


def flat_listing(tree: LexborHTMLParser, by_name: dict[str, Candidate], hint: str | None) -> list[ProductFacts]:
    """The products of a page that lists them as title links followed by their prices (or as a buy button followed by
    the product's name and price, where the title is no link). The page's heading ends a run of titles: a product page's
    breadcrumb link followed by its heading and price is no card."""
    body = tree.body
    if body is None:
        return []
    reader = _Reader(hint)
    for node in body.traverse(include_text=True):
        if node.tag == "-text":
            if not _inside_link(node):
                reader.text(fold(node.text(deep=False)))
            continue
        if node.tag == "h1":  # the page's own heading is in no card: a link before it (a breadcrumb) titles none
            reader.close()
            continue
        name = node.attributes.get("name")
        candidate = by_name.get(name) if name else None
        if candidate is None or candidate.name.partition(".")[0] in _FRAME:
            continue
        if candidate.click_type == "purchase":
            reader.buy(candidate.name)
        elif node.tag == "a" and _is_title(candidate):
            reader.title(candidate.name, candidate.text)
        elif node.tag == "a" and _is_price_link(candidate.text, hint):
            reader.text(candidate.text)  # a price drawn as a link to the product: read as the card's text
        elif node.tag == "a" and candidate.click_type in _ENDS_A_CARD:
            reader.close()
    reader.close()
    return reader.products


class _Reader:
    """Title links since the last product's price (`run`), the text after them, the buy buttons among them."""

    def __init__(self, hint: str | None) -> None:
        self.hint = hint
        self.products: list[ProductFacts] = []
        self.run: list[tuple[str, str]] = []
        self.texts: list[str] = []
        self.buys: list[str] = []
        self.priced = False
        self.card_buy: str | None = None  # a buy button before any title: the card's title may be plain text

    def title(self, name: str, text: str) -> None:
        if self.priced:
            self.close()
        self.run.append((name, text))
        self.texts = []  # its price is the first amount after it: not one in the text of the links before it

    def text(self, text: str) -> None:
        if not text:
            return
        if not self.run and self.card_buy is not None and _reads_as_title(text):
            self.run, self.buys, self.card_buy = [(self.card_buy, text)], [self.card_buy], None
            return
        if self.run:
            self.texts.append(text)
            self.priced = self.priced or bool(find_money(text, self.hint))

    def buy(self, name: str) -> None:
        if self.run and not (self.priced and self.buys):
            self.buys.append(name)
            return
        self.close()  # a card that starts with its buy button
        self.card_buy = name

    def close(self) -> None:
        if self.run and self.priced:
            name, title = _chosen_title(self.run)
            text = fold(" ".join(self.texts))[:_AFTER]
            price = shown_price(text, self.hint)
            if price is not None:
                self.products.append(
                    common_facts(
                        text=text,
                        labels="",
                        title=title[:200],
                        name=name,
                        brand=None,
                        price=price,
                        list_price=None,
                        review_count=None,
                        option_count=0,
                        buy_names=tuple(self.buys),
                        delivery_text=text,
                        stock_text=text,
                    )
                )
        self.run, self.texts, self.buys, self.priced, self.card_buy = [], [], [], False, None


def _chosen_title(run: list[tuple[str, str]]) -> tuple[str, str]:
    """The product's own title among the links before its price: not one whose words another link already holds
    (its author or brand, a shorter copy of the title), the last one shown twice in a row (image and title links),
    else the last one. Twice apart is no title: a sort menu's "High to low" for the bestsellers and for the price."""
    kept = [
        (name, text)
        for i, (name, text) in enumerate(run)
        if not any(_words(text) <= _words(other) and text != other for _, other in run[:i])
    ]
    kept = kept or run
    texts = [text for _, text in run]
    twice = {a for a, b in pairwise(texts) if a == b}
    return ([item for item in kept if item[1] in twice] or kept)[-1]


def _words(text: str) -> set[str]:
    return set(text.casefold().split())


def _priced(texts: list[str], hint: str | None) -> bool:
    return any(find_money(text, hint) for text in texts)


def _reads_as_title(text: str) -> bool:
    return len(text) >= _MIN_TITLE and sum(ch.isalpha() for ch in text) >= 4 and not find_money(text)


def _is_title(candidate: Candidate) -> bool:
    text = candidate.text
    return (
        candidate.click_type in _TITLE_TYPES
        and len(text) >= _MIN_TITLE
        and any(ch.isalpha() for ch in text)
        and candidate.name.partition(".")[0] not in _FRAME
        and not find_money(text)
    )


def _is_price_link(text: str, hint: str | None) -> bool:
    """A link that shows an amount and little else ("729,00 €*"): not a title that names an amount ("Gift Card -
    £50") nor an offer beside the price ("Trade in £ 361.00")."""
    found = find_money(text, hint)
    if len(found) != 1:
        return False
    rest = text[: found[0].start] + text[found[0].end :]
    return sum(ch.isalpha() for ch in rest) <= 3


def _inside_link(node: LexborNode) -> bool:
    parent = node.parent
    for _ in range(4):
        if parent is None:
            return False
        if parent.tag == "a":
            return True
        parent = parent.parent
    return False


def shown_price(text: str, hint: str | None) -> Money | None:
    """The first amount that is no saving, fee, unit price or labelled list price; of a higher and a lower amount
    side by side ("$7.99$7.19"), shown with a saving ("$224.99 $174.99 You save $50.00") or the lower labelled as
    the sale price ("$40.00 Special Price $32.00"), the lower."""
    found = [
        money
        for money in find_money(text, hint)
        if not _NOT_THE_PRICE_BEFORE.search(text[max(0, money.start - 20) : money.start])
        and not _NOT_THE_PRICE_AFTER.match(text, money.end)
    ]
    if (
        len(found) >= 2
        and found[1].amount < found[0].amount
        and (
            _SAVING.search(text)
            or not text[found[0].end : found[1].start].strip()
            or _SALE_LABEL.search(text[found[0].end : found[1].start])
        )
    ):
        return found[1]  # a was-price beside the price, or a saving said
    return found[0] if found else None


_SAVING = re.compile(r"save|sparen|économ|ahorr|risparm|\d\s?%", re.IGNORECASE)
# Just before the lower of two amounts, the label of a sale price: "Special Price", "Sale price", "Sonderpreis",
# "Prix promo", "Precio oferta", "Prezzo scontato", "Preço promocional", "Actieprijs", "Cena promocyjna".
_SALE_LABEL = re.compile(
    r"\b(?:(?:special|sale|offer|promo(?:tional)?)(?: price)?|(?:sonder|aktions|angebots)preis|angebot|"
    r"prix (?:promo|soldé|réduit)|precio (?:de )?(?:oferta|rebajado)|oferta|prezzo (?:scontato|offerta|promo)|offerta|"
    r"preço (?:promocional|de oferta)|promoção|(?:actie|aanbiedings)prijs|cena promocyjna|promocja"
    r")\s*:?\s*$",
    re.IGNORECASE,
)
