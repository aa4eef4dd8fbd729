"""What a twin does right after adding to its cart, when the shop keeps it on the same page.

The behaviour model cannot say: OPeRA's sessions end at the purchase click (118 of 118 in the shared timelines,
Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0), so it was never fitted on what follows one. Amazon and the demo
shop take the shopper to the cart (or its side sheet) after Add to Cart; many shops instead stay on the page and
show "added to your cart" with a way to the cart or checkout. A twin follows that way, as the redirect would have
taken it, and decides on the cart page, where the model knows the situation again.
"""

from __future__ import annotations

import re

from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import PURCHASE
from agent.page.candidate import Candidate
from agent.page.observation import Observation

_CHECKOUT = re.compile(r"check_?out|proceed_to")


def follow_through(past: list[PastAction], observation: Observation) -> Candidate | None:
    """The element that takes a twin that has just added to its cart on to the cart (else the checkout), when
    the page it stayed on offers one; None otherwise (the model decides)."""
    if not past or past[-1].label != PURCHASE or observation.page_type in ("cart", "checkout"):
        return None
    to_cart = [c for c in observation.candidates if c.click_type == "cart_side_bar"]
    if to_cart:
        return to_cart[0]
    to_checkout = [
        c for c in observation.candidates if c.click_type == PURCHASE and _CHECKOUT.search(c.name.rpartition(".")[2])
    ]
    return to_checkout[0] if to_checkout else None
