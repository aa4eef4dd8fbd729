"""What kind of page a twin is on, one rule for serving and for training.

Serving reads it from the page's URL and its element names (agent.observation); calibration reads it from
the URL of each recorded step, with no names. The behaviour model only uses the kinds it can tell apart
(`page_type_feature`): "other" and "none" say nothing and are dropped on both sides.
"""

from __future__ import annotations

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
