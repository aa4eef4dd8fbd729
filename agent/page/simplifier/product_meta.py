"""The product a raw page declares (agent/page/structured_data.py), carried into the simplified page.

Shops often fill the visible price and stock in with JavaScript; a saved or raw page then shows "--" where a live
browser shows "$329.99", and structured data is the one reading that does not depend on the shop's layout or
language. The simplified page keeps what was declared at its end, after anything visible: as data attributes for
the page's reader (agent/page/facts.py), which weighs them against what the page shows, and as text for a model
that reads the page.
"""

from __future__ import annotations

import html

from agent.page.structured_data import Declared, DeclaredProduct

_STOCK_WORDS = {"in_stock": "In Stock", "unavailable": "Currently unavailable"}


def product_meta_part(declared: Declared) -> str:
    """`<div class="product-meta">` with the declared product, or "" when the page declares none."""
    product = declared.product
    attributes = {
        "data-page-type": declared.page_type,
        "data-listed": str(declared.listed) if declared.listed else None,
    }
    shown = []
    if product is not None:
        attributes.update(_data(product))
        if product.price is not None:
            amount = (
                f"${product.price:,.2f}"
                if product.currency == "USD"
                else f"{product.price:,.2f} {product.currency or ''}".rstrip()
            )
            shown.append(f'<span class="product-price">Price: {html.escape(amount)}</span>')
        if product.availability in _STOCK_WORDS:
            shown.append(f'<span class="availability">{_STOCK_WORDS[product.availability]}</span>')
    elif not declared.page_type and not declared.items:
        return ""
    shown.extend(f'<span class="declared-item"{_marks(_data(item))}></span>' for item in declared.items)
    return f'<div class="product-meta"{_marks(attributes)}>{"".join(shown)}</div>'


def _data(product: DeclaredProduct) -> dict[str, str | None]:
    """A declared product's facts as data attributes for the page's reader (agent/page/own_product.py); a list's
    products carry them without text, since the page shows them already."""
    return {
        "data-source": product.source,
        "data-name": product.name,
        "data-brand": product.brand,
        "data-price": f"{product.price:.2f}" if product.price is not None else None,
        "data-currency": product.currency,
        "data-availability": product.availability,
        "data-rating": f"{product.rating:g}" if product.rating is not None else None,
        "data-review-count": str(product.review_count) if product.review_count is not None else None,
    }


def _marks(attributes: dict[str, str | None]) -> str:
    return "".join(f' {key}="{html.escape(value)}"' for key, value in attributes.items() if value)
