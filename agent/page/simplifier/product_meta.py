"""The product a page declares in its OpenGraph metadata (`og:type` product, `product:price:amount`,
`og:availability`), as text a shopper would see.

Shops often fill the visible price and stock in with JavaScript; a saved or raw page then shows "--" where
a live browser shows "$329.99". The same figures sit in the page's metadata, so the simplified page carries
them at its end, after anything visible (which comes first for every reader).
"""

from __future__ import annotations

import html

from selectolax.lexbor import LexborHTMLParser

# parse_clean keeps these <meta> elements; everything else in <head> is dropped.
KEPT_META = ("og:type", "product:price:amount", "product:price:currency", "og:price:amount", "og:price:currency",
             "og:availability", "product:availability")
_IN_STOCK = {"instock", "in stock", "in_stock", "available", "http://schema.org/instock", "https://schema.org/instock"}
_UNAVAILABLE = {"oos", "outofstock", "out of stock", "out_of_stock", "discontinued", "soldout", "sold out",
                "http://schema.org/outofstock", "https://schema.org/outofstock"}


def product_meta_part(tree: LexborHTMLParser) -> str:
    """`<div class="product-meta">` with the declared price and stock, or "" when the page declares no product."""
    meta = {}
    for node in tree.css("meta[property]"):
        key = (node.attributes.get("property") or "").strip().lower()
        if key in KEPT_META and key not in meta:
            meta[key] = (node.attributes.get("content") or "").strip()
    price = meta.get("product:price:amount") or meta.get("og:price:amount") or ""
    currency = (meta.get("product:price:currency") or meta.get("og:price:currency") or "USD").upper()
    stock = (meta.get("og:availability") or meta.get("product:availability") or "").lower()
    if meta.get("og:type", "").lower() != "product" and not price:
        return ""
    shown = []
    if _is_amount(price) and currency == "USD":
        shown.append(f'<span class="product-price">Price: ${float(price.replace(",", "")):,.2f}</span>')
    if stock in _IN_STOCK:
        shown.append('<span class="availability">In Stock</span>')
    elif stock in _UNAVAILABLE:
        shown.append('<span class="availability">Currently unavailable</span>')
    return f'<div class="product-meta" data-type="{html.escape(meta.get("og:type", "product"))}">{"".join(shown)}</div>'


def _is_amount(text: str) -> bool:
    try:
        return float(text.replace(",", "")) > 0
    except ValueError:
        return False
