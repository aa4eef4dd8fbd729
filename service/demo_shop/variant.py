"""The A/B switch: `?variant=b` (remembered in a cookie) shows a sale banner, sale prices and a buy box
that leads with "Buy Now", so an experiment can compare two live URLs of the same shop.
"""

from __future__ import annotations

from fastapi import Request

from service.demo_shop.catalog import Product

COOKIE = "twinshop_variant"
VARIANTS = ("a", "b")
DISCOUNT = 0.15  # variant b: 15% off every price


def variant_of(request: Request) -> tuple[str, bool]:
    """(variant, whether the cookie must be set): the query parameter wins over the cookie; default "a"."""
    asked = (request.query_params.get("variant") or "").lower()
    if asked in VARIANTS:
        return asked, request.cookies.get(COOKIE) != asked
    remembered = (request.cookies.get(COOKIE) or "").lower()
    return (remembered if remembered in VARIANTS else "a"), False


def price_of(product: Product, variant: str) -> float:
    return round(product.price * (1 - DISCOUNT), 2) if variant == "b" else product.price


def money(value: float) -> str:
    return f"${value:,.2f}"
