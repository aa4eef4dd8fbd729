"""Facts read the same way for every product, a listing's card or a product page's own product: its delivery,
stock, rating, reviews, sponsored label and badges from its text and labels, around the price and list price the
caller found (each in its currency)."""

from __future__ import annotations

from agent.page import fact_texts
from agent.page.facts_model import ProductFacts
from agent.page.money import Money

COUNT_PARTS = frozenset({"reviews", "review_count", "ratings", "rating_count"})


def common_facts(
    *,
    text: str,
    labels: str,
    title: str,
    name: str | None,
    brand: str | None,
    price: Money | None,
    list_price: Money | None,
    review_count: int | None,
    option_count: int,
    buy_names: tuple[str, ...],
    delivery_text: str,
    stock_text: str,
) -> ProductFacts:
    """Facts read the same way for every product: from its block's text, labels and marked elements. A list price
    in another currency than the price is not a list price of it."""
    shown = text + " " + labels
    if len(title) > 3:  # a title may itself say "Deal" or "Best Seller": only what is shown around it counts
        shown = shown.replace(title, " ")
    free, fee, days = fact_texts.delivery(delivery_text)
    availability, left = fact_texts.availability(stock_text)
    if review_count is None:
        review_count = fact_texts.review_count(labels) or fact_texts.review_count(text)
    currency = price.currency if price is not None else None
    if list_price is not None and price is not None and list_price.currency != currency:
        list_price = None
    sources = tuple((fact, "visible") for fact, value in (("price", price), ("availability", availability)) if value)
    return ProductFacts(
        title=title,
        name=name,
        brand=brand,
        price=price.amount if price else None,
        list_price=list_price.amount if list_price else None,
        rating=fact_texts.rating(labels) or fact_texts.rating(text),
        review_count=review_count,
        delivery_free=free,
        delivery_fee=fee,
        delivery_days=days,
        availability=availability,
        stock_left=left,
        sponsored=fact_texts.sponsored(shown),
        badges=fact_texts.badges(shown),
        option_count=option_count,
        buy_names=buy_names,
        currency=currency,
        sources=sources,
    )
