"""The 13 OPeRA click types, and how to tell an element's click type from its semantic name."""

from __future__ import annotations

# In OPeRA's order of frequency in the filtered release (Wang et al. 2025, arXiv 2506.05606).
CLICK_TYPES: tuple[str, ...] = (
    "review",
    "search",
    "product_option",
    "product_link",
    "other",
    "purchase",
    "nav_bar",
    "page_related",
    "quantity",
    "suggested_term",
    "cart_side_bar",
    "cart_page_select",
    "filter",
)

# Placeholder: the observation work replaces this with the real inference (see infer_click_type).
def infer_click_type(name: str, tag: str | None = None, text: str | None = None) -> str:
    raise NotImplementedError
