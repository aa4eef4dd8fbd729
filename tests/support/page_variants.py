"""Variants of the real sample product page made by editing its text (prices scaled, list price, rating and
review count changed, reviews, buy buttons or stock removed), for the page-term tests; parsed by the real parser."""

from __future__ import annotations

import re

from agent.sample_pages import sample_page

HTML = sample_page("product_page.html")

_PRICE = re.compile(r"\$(\d[\d,]*(?:\.\d\d)?)")
_SPLIT = '<div name="similar_items"'  # what precedes it is the page's own product (and the shop's frame)


def _scaled(text: str, factor: float) -> str:
    return _PRICE.sub(lambda m: f"${float(m.group(1).replace(',', '')) * factor:,.2f}", text)


def product_priced(html: str, factor: float) -> str:
    """The page's own product (price, list price, buy box, options) costs `factor` times as much."""
    head, rest = html.split(_SPLIT, 1)
    return _scaled(head, factor) + _SPLIT + rest


def all_priced(html: str, factor: float) -> str:
    """Every price on the page, the alternatives' too, times `factor`."""
    return _scaled(html, factor)


def list_price(html: str, text: str | None) -> str:
    """The struck list price replaced ("$25.98"), or removed (None)."""
    if text is None:
        return html.replace("<span>List Price: $15.99</span>", "")
    return html.replace("List Price: $15.99", f"List Price: {text}")


def rated(html: str, rating: float, count: int) -> str:
    html = html.replace(
        'aria-label="4.7 out of 5 stars">4.7 4.7 out of 5 stars',
        f'aria-label="{rating} out of 5 stars">{rating} {rating} out of 5 stars',
    )
    html = html.replace("<span>4.7 out of 5</span>", f"<span>{rating} out of 5</span>")
    return html.replace('aria-label="48,211 Reviews">(48,211)', f'aria-label="{count:,} Reviews">({count:,})')


def without_reviews(html: str) -> str:
    """No star rating, no review count, no reviews section: what amazon.com shows for a product nobody reviewed."""
    html = re.sub(r'<div name="product_rating">.*?</div>', "<span>No customer reviews</span>", html)
    return re.sub(r'<div id="reviewsMedley">.*?</div></body>', "</body>", html, flags=re.DOTALL)


def without_buying(html: str) -> str:
    """Every add-to-cart, buy-now and subscribe element removed."""
    for pattern in (
        r'<div name="buybox\.one_time_purchase\.purchase_form">.*?</div>',
        r'<div name="buybox\.subscribe_save">.*?</div>',
        r'<input name="buybox\.purchase_form\.(?:add_to_cart|buy_now)"[^>]*>',
    ):
        html = re.sub(pattern, "", html)
    return html


def unavailable(html: str) -> str:
    """Out of stock; the buttons (Add to Cart, Subscribe Now) are still on the page."""
    assert "In Stock" in html and "Subscribe Now" in html
    return html.replace("In Stock", "Currently unavailable")
