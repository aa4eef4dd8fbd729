"""The page facts as a few compact lines of text: what the LLM prompt shows beside the elements.

On a real 100 KB page the start of the visible text is mostly navigation; these lines carry what a shopper
weighs (price, list price, stars, reviews, delivery, stock, badges) so that both brains decide from the same
facts (the embedded brain reads them as numbers, agent/behaviour/page_terms.py).
"""

from __future__ import annotations

from agent.page.facts_model import PageFacts, ProductFacts
from agent.page.money import format_money

MAX_PRODUCTS = 12
MAX_TITLE = 80


def product_line(product: ProductFacts) -> str:
    """One product: title | price (list, % off) | stars (reviews) | delivery | stock | labels."""
    parts = [product.title[:MAX_TITLE] or "(untitled)"]
    if product.price is not None:
        price = format_money(product.price, product.currency)
        if product.list_price and product.discount:
            price += (
                f" (list {format_money(product.list_price, product.currency)}, {round(100 * product.discount)}% off)"
            )
        parts.append(price)
    if product.rating is not None or product.review_count is not None:
        stars = f"{product.rating:.1f} stars" if product.rating is not None else "no rating"
        count = f"{product.review_count:,} reviews" if product.review_count is not None else "reviews not shown"
        parts.append(f"{stars}, {count}")
    delivery = []
    if product.delivery_free:
        delivery.append("free delivery")
    elif product.delivery_fee:
        delivery.append(f"{format_money(product.delivery_fee, product.currency)} delivery")
    if product.delivery_days is not None:
        delivery.append(f"in {product.delivery_days} day{'s' if product.delivery_days != 1 else ''}")
    if delivery:
        parts.append(" ".join(delivery))
    if product.availability == "unavailable":
        parts.append("UNAVAILABLE")
    elif product.stock_left is not None:
        parts.append(f"only {product.stock_left} left")
    labels = (["sponsored"] if product.sponsored else []) + [b.replace("_", " ") for b in product.badges]
    if labels:
        parts.append(", ".join(labels))
    if product.option_count:
        parts.append(f"{product.option_count} options")
    return " | ".join(parts)  # its link is in the element list, named after this title: not repeated here


def facts_lines(facts: PageFacts) -> list[str]:
    """The facts block (empty when the page shows no product)."""
    if not facts.products:
        return []
    lines = []
    focus = facts.focus_product
    if focus is not None:
        lines.append(f"This page's product: {product_line(focus)}")
        if not facts.can_buy:
            lines.append("It cannot be bought here now.")
    others = facts.alternatives()
    if others:
        lines.append(f"{'Other products' if focus is not None else 'Products'} in view ({len(others)}):")
        lines += [f"- {product_line(p)}" for p in others[:MAX_PRODUCTS]]
        if len(others) > MAX_PRODUCTS:
            lines.append(f"- ... {len(others) - MAX_PRODUCTS} more")
    return lines
