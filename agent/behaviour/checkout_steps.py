"""What a twin that has decided to buy does on the way to the order: at each step, go on or leave.

OPeRA's sessions end at the first purchase click, Add to Cart included, and count the session as bought (Wang et
al. 2025, arXiv 2506.05606, CC-BY-4.0): the behaviour model has never seen what follows that decision. On a shop
that does not stop there, a twin that has just made a purchase-type decision (Add to cart, then taken to its
cart by after_add_to_cart.py; Proceed to checkout; Continue) is on its way to the order: on the cart or a checkout
page it either abandons the order here or goes on. It leaves with the model's probability of ending the session
by leaving now (its `terminate`, with the page's terms: an order total over the person's budget, a delivery fee);
anything else the person might do there (click into a field, type, press Continue) is part of filling in the
step and going on, which the simulation's test details (agent/simulation/checkout_form.py) and the step's own
purchase-type control (Proceed to checkout, Continue, Place order) do for it. Each step is decided again, so a
long checkout loses more twins than a short one.
"""

from __future__ import annotations

import re

import numpy as np

from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import LABEL_INDEX, PURCHASE, TERMINATE
from agent.behaviour.model import LabelDistribution
from agent.behaviour.page_index import PageIndex
from agent.page.observation import Observation

_TO_CART = "cart_side_bar"  # the click after_add_to_cart.py makes after an add-to-cart that stays on the page
# Purchase controls that buy one product (add it, buy it now), not ones that take the order on.
_BUYS_A_PRODUCT = re.compile(r"add_to_|buy_now|subscribe")
# A form's fields are filled, not pressed, even when their names say "checkout" (checkout[country], a
# "check out as a guest" choice): the control that takes the order on is a button or a link.
_FIELD_TAGS = frozenset({"select", "option", "textarea"})
_FIELD_ROLES = frozenset(
    {"radio", "checkbox", "option", "combobox", "switch", "menuitemradio", "menuitemcheckbox", "textbox", "searchbox"}
)


def on_the_way_to_order(past: list[PastAction], observation: Observation) -> bool:
    """On the cart or a checkout page right after a purchase-type decision (or after the click to the cart that
    followed one)."""
    if not past or observation.page_type not in ("cart", "checkout"):
        return False
    if past[-1].label == PURCHASE:
        return True
    return len(past) >= 2 and past[-1].label == _TO_CART and past[-2].label == PURCHASE


def not_next_steps(index: PageIndex) -> frozenset[str]:
    """The page's purchase-type elements that do not take the order on: another item's Add to cart on a cart
    page, and form fields whose names happen to say "checkout"."""
    return frozenset(
        c.name
        for c in (index.candidates[i] for i in index.group(PURCHASE))
        if _BUYS_A_PRODUCT.search(c.name.rsplit(".", 1)[-1])
        or c.kind == "input"
        or c.tag in _FIELD_TAGS
        or (c.role or "") in _FIELD_ROLES
    )


def offers_next_step(index: PageIndex, excluded: frozenset[str]) -> bool:
    return any(index.candidates[i].name not in excluded for i in index.group(PURCHASE))


def checkout_step(distribution: LabelDistribution, rng: np.random.Generator | None) -> str:
    """TERMINATE with the model's probability of leaving now (most likely: only when it is over one half), else
    PURCHASE: the step's control that takes the order on."""
    leave = float(distribution.probabilities[LABEL_INDEX[TERMINATE]])
    left = rng.random() < leave if rng is not None else leave > 0.5
    return TERMINATE if left else PURCHASE
