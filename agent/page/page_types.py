"""What kind of page a twin is on: every rule in one place.

`page_type` is the twin's: serving reads it from the page's URL and its element names (agent.page.observation),
calibration from the URL of each recorded step, with no names; the behaviour model only uses the kinds it can
tell apart (`page_type_feature`): "other" and "none" say nothing and are dropped on both sides.
`any_site_page_type` is the simplifier's label for a raw page of any shop (SimplifiedPage.page_type).
On a page Amazon's rules call "other", the twin's type comes from the same shop-neutral URL words
(`url_page_type`) and then from what the page shows (`shown_page_type`: one product's price and stock, or a
list of priced products), so a twin on any shop knows a product page, a listing, its basket and checkout.
Calibration keeps `page_type` from the URL alone: OPeRA's pages are Amazon's.
"""

from __future__ import annotations

import re
from typing import Literal, Sequence
from urllib.parse import urlparse

PageType = Literal["search_results", "product", "cart", "checkout", "home", "other", "none"]


def page_type(url: str | None, names: Sequence[str] = ()) -> PageType:
    """Amazon's URL paths first, then the OPeRA names a page's elements carry (a cart lists active items, a
    product page has a buybox or options, a search page has results)."""
    parts = urlparse(url) if url else None
    path = parts.path.lower() if parts else ""
    query = parts.query if parts else ""
    if "checkout" in path or "/buy/" in path:
        return "checkout"
    if "/cart" in path or any(n.startswith("active_item_list") for n in names[:400]):
        return "cart"
    if "/dp/" in path or "/gp/product" in path or any(n.startswith(("buybox", "product_options")) for n in names):
        return "product"
    if path.startswith("/s") and ("k=" in query or path.startswith("/s/")) or any(n.startswith("search_results") for n in names):
        return "search_results"
    if url and path in ("", "/"):
        return "home"
    return "other"


def page_type_feature(kind: str | None) -> str | None:
    """The page type as the behaviour model's feature: None when it says nothing."""
    return None if kind in (None, "none", "other") else kind


def any_site_page_type(url: str | None, button_texts: Sequence[str] = (), has_heading: bool = False) -> PageType:
    """Shop-neutral URL words first (checkout; cart, basket, bag, trolley; search, s, q=, k=; product, p, dp,
    item), then the page's buttons: one add-to-cart under a heading is a product page, several are a list."""
    by_url = url_page_type(url)
    if by_url != "other":
        return by_url
    path = urlparse(url).path.lower() if url else ""
    adds = sum(("add to cart" in b or "add to basket" in b or "add to bag" in b) for b in button_texts)
    if adds == 1 and has_heading:
        return "product"
    if adds > 1:
        return "search_results"
    if url and path in ("", "/"):
        return "home"
    return "other"


def url_page_type(url: str | None) -> PageType:
    """The page type shop-neutral words in a URL give (checkout; cart, basket, bag, trolley; search, s, q=, k=;
    product, p, dp, item), else "other"."""
    parts = urlparse(url) if url else None
    path = parts.path.lower() if parts else ""
    query = parts.query.lower() if parts else ""
    if re.search(r"checkout", path):
        return "checkout"
    if re.search(r"(?:^|/)(?:cart|basket|bag|trolley)(?:/|$|\.)", path):
        return "cart"
    if re.search(r"(?:^|/)(?:search|s)(?:/|$)", path) or re.search(r"(?:^|&)(?:q|k|query|search)=", query):
        return "search_results"
    if re.search(r"(?:^|/)(?:product|products|p|dp|item|items)(?:/|$)", path):
        return "product"
    return "other"


def shown_page_type(one_product: bool, priced_products: int) -> PageType:
    """What a page Amazon's rules and the URL leave as "other" shows: one product (its own price, stock or buy
    button) is a product page, two or more priced products a listing (search results or a category)."""
    if one_product:
        return "product"
    return "search_results" if priced_products >= 2 else "other"


# An order confirmation, on any shop: the page a shop shows once an order is placed.
_CONFIRMATION_PATH = re.compile(
    r"thank[-_]?you|order[-_]?(?:confirmation|confirmed|received|complete|completed|placed|success)|"
    r"(?:^|/)confirmation(?:/|$|\.)|checkout/(?:[^/]+/)?(?:success|complete|completed|done)(?:/|$|\.)")
_CONFIRMATION_TEXT = re.compile(
    r"thank(?:s| you) for (?:your|the) (?:order|purchase)|your order (?:has been|was|is) (?:placed|received|"
    r"confirmed|complete)|order (?:confirmed|placed|received)\b|your order number is|"
    r"order (?:number|no\.?|#)\s*(?:is\s*)?[:#]?\s*#?[a-z]*\d")
_CONFIRMED = re.compile(r"confirm|placed|received|complete")
_THANKS = re.compile(r"thank(?:s| you)")
_YOUR_ORDER = re.compile(r"\byour order\b|\border (?:number|no\.?|#)")


def is_order_confirmation(url: str | None, title: str = "", text: str = "") -> bool:
    """The page a shop shows once an order is placed, in shop-neutral words: its address (thank-you,
    order-confirmation, order-received, checkout/success), a title that confirms an order (or thanks, on a page about
    an order), or text that says the order was placed or gives its number. A checkout's step list ("5. Confirmation") is not enough."""
    path = urlparse(url).path.lower() if url else ""
    if _CONFIRMATION_PATH.search(path):
        return True
    title, text = title.lower(), text.lower()
    if _CONFIRMATION_TEXT.search(text) or _CONFIRMATION_TEXT.search(title):
        return True
    if "order" in title and _CONFIRMED.search(title):
        return True
    return bool(_THANKS.search(title)) and _YOUR_ORDER.search(text) is not None
