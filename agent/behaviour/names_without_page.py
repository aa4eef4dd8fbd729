"""Naming the element of a predicted click when there is no page: from the history and Amazon's names.

Without a page the model still has to say *what* is clicked, and OPeRA scores a click by its exact
semantic id (Wang et al. 2025, arXiv 2506.05606). The rules, in order: the element that usually comes
right after the last one (input into the search box -> its search button); the last element when the
person repeats a click type (review images "next", pagination); the element this person last used with
that click type; else the standard name the OPeRA recorder gives that element on amazon.com. The
standard names and the "after" table are defaults; `twinsim calibrate` on the full OPeRA release
replaces them with the names that real sessions use most (NamingTables.learned).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import INPUT

SEARCH_INPUT = "nav_bar.search_input"
SEARCH_BUTTON = "nav_bar.search_button"
SUGGESTED_TERMS = "nav_bar.suggested_terms"

# The recorder's names (README "Name patterns seen"; the OPeRA plugin's recipes) per click type.
STANDARD_NAMES: dict[str, str] = {
    "review": "reviews",
    "search": SEARCH_INPUT,
    "product_option": "product_options",
    "product_link": "search_results.product_name",
    "other": "about_this_item",
    "purchase": "buybox.purchase_form.add_to_cart",
    "nav_bar": "nav_bar.cart_button",
    "page_related": "pagination.next",
    "quantity": "buybox.purchase_form.quantity_selector.drop_down_list",
    "suggested_term": SUGGESTED_TERMS,
    "cart_side_bar": "cart_side_bar.go_to_cart",
    "cart_page_select": "active_item_list.checkbox",
    "filter": "refinements",
}
CART_NAMES = frozenset({"nav_bar.cart_button", "cart_side_bar.go_to_cart", "go_to_cart"})
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """OPeRA's slug: lower case, every run of non-alphanumerics turned into '_'."""
    return _NON_ALNUM.sub("_", text.lower()).strip("_")


@dataclass(frozen=True)
class NamingTables:
    """Name statistics: defaults, or learned from the full OPeRA action table by calibrate."""

    standard: dict[str, str] = field(default_factory=lambda: dict(STANDARD_NAMES))
    # last element name -> click type of the next click -> the name that click most often had
    after: dict[str, dict[str, str]] = field(default_factory=dict)
    # click type -> share of same-type successive clicks that hit the very same element
    repeat_share: dict[str, float] = field(default_factory=dict)
    learned: bool = False

    def to_json(self) -> dict:
        return {
            "standard": dict(sorted(self.standard.items())),
            "after": {name: dict(sorted(row.items())) for name, row in sorted(self.after.items())},
            "repeat_share": {k: round(v, 4) for k, v in sorted(self.repeat_share.items())},
            "learned": self.learned,
        }

    @classmethod
    def from_json(cls, data: dict | None) -> NamingTables:
        if not data:
            return cls()
        standard = dict(STANDARD_NAMES)
        standard.update(data.get("standard", {}))
        return cls(
            standard=standard,
            after={name: dict(row) for name, row in data.get("after", {}).items()},
            repeat_share=dict(data.get("repeat_share", {})),
            learned=bool(data.get("learned", False)),
        )


def name_click(click_type: str, past: Sequence[PastAction], tables: NamingTables) -> tuple[str, str]:
    """(element name, why) for a click of `click_type` after `past`, without a page."""
    last = past[-1] if past else None
    if last is not None and last.label == INPUT:
        if click_type == "search":
            return SEARCH_BUTTON, "submitting the query just typed"
        if click_type == "suggested_term" and last.text:
            return f"{SUGGESTED_TERMS}.{slug(last.text)}", "picking the suggestion for the query just typed"
    if last is not None and last.name:
        learned_next = tables.after.get(last.name, {}).get(click_type)
        if learned_next:
            return learned_next, "the element people use right after the last one"
        if last.label == click_type and tables.repeat_share.get(click_type, 0.5) >= 0.25:
            return last.name, "the same element again"
    if click_type == "purchase" and any(item.name in CART_NAMES for item in past[-3:]):
        return "check_out", "checking out from the cart"
    if click_type == "search":
        return SEARCH_INPUT, "starting a new search"
    for item in reversed(past):
        if item.label == click_type and item.name:
            return item.name, "the element I last used for this"
    return tables.standard.get(click_type, STANDARD_NAMES.get(click_type, click_type)), "the usual element for this"


def name_input(past: Sequence[PastAction]) -> str:
    """The field typed into: the last one used, else the search box."""
    for item in reversed(past):
        if item.label == INPUT and item.name:
            return item.name
    return SEARCH_INPUT
