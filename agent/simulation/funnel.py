"""The shopping funnel of a live simulation: how far each twin got (search -> product -> cart ->
checkout -> purchase -> order), where the twins left and why.

`purchase` is the twin's own order-placing click; `order` is the shop's answer to it, an order confirmation
page (agent.page.page_types.is_order_confirmation), so a click the shop refused is not counted as an order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from statistics import NormalDist

from pydantic import BaseModel, Field

from agent.page.click_types import is_checkout_step
from agent.simulation.trace import TwinTrace

STAGES: tuple[str, ...] = ("search", "product", "cart", "checkout", "purchase", "order")
PAGE_STAGE = {"search_results": "search", "product": "product", "cart": "cart", "checkout": "checkout"}
_ORDER_PLACING = re.compile(r"place_(?:your_)?order|complete_(?:order|purchase)|confirm_(?:order|purchase)|pay_now")


def is_purchase(name: str, click_type: str | None, page_type: str) -> bool:
    """The click that buys: one that says it places the order, or a purchase control on a checkout page that is
    not one of the checkout's steps (Continue, Next, Pay: the twin goes on through the checkout).

    Add to cart and Buy Now are purchase clicks in OPeRA's taxonomy but lead to the cart or checkout,
    where the twin can still leave.
    """
    if click_type != "purchase":
        return False
    if _ORDER_PLACING.search(name.rsplit(".", 1)[-1]) is not None:
        return True
    return page_type == "checkout" and not is_checkout_step(name)


def stages_reached(page_types: list[str], purchased: bool, ordered: bool = False) -> list[str]:
    seen = {PAGE_STAGE[t] for t in page_types if t in PAGE_STAGE}
    if purchased:
        seen.add("purchase")
    if ordered:
        seen.add("order")
    return [stage for stage in STAGES if stage in seen]


class StageCount(BaseModel):
    stage: str
    twins: int
    share: float
    ci_low: float | None = Field(None, description="95% Wilson interval of the share (few twins: a wide one).")
    ci_high: float | None = None


def wilson_interval(count: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of count/n: sensible at 0 of n and n of n, where the plain one collapses.
    Statsmodels' formula (proportion_confint, method="wilson"; tests/test_live_speed_parts.py holds them equal),
    written out: importing statsmodels and scipy took longer than a whole live step at the end of every run."""
    crit = NormalDist().inv_cdf(1 - (1 - level) / 2)
    share, crit2 = count / n, crit**2
    denominator = 1 + crit2 / n
    center = (share + crit2 / (2 * n)) / denominator
    half = crit * math.sqrt(share * (1.0 - share) / n + crit2 / (4.0 * n**2)) / denominator
    return round(float(center - half), 4), round(float(center + half), 4)


class Exit(BaseModel):
    persona_id: str
    outcome: str
    furthest_stage: str | None
    page_type: str | None
    url: str | None
    steps: int
    reason: str


class Funnel(BaseModel):
    twins: int
    reached: list[StageCount] = Field(..., description="Twins that reached each stage (saw such a page).")
    furthest: dict[str, int] = Field(..., description="Twins by the furthest stage reached ('none' = not even search).")
    outcomes: dict[str, int]
    exit_pages: dict[str, int] = Field(..., description="Page types the twins were on when their runs ended.")
    failures: dict[str, int]
    exits: list[Exit]


def summarise(traces: list[TwinTrace]) -> Funnel:
    n = len(traces)
    reached = []
    for stage in STAGES:
        count = sum(stage in t.stages for t in traces)
        low, high = wilson_interval(count, n) if n else (None, None)
        reached.append(
            StageCount(stage=stage, twins=count, share=round(count / n, 4) if n else 0.0, ci_low=low, ci_high=high)
        )
    furthest = Counter((t.stages[-1] if t.stages else "none") for t in traces)
    return Funnel(
        twins=n,
        reached=reached,
        furthest={stage: furthest.get(stage, 0) for stage in ("none", *STAGES)},
        outcomes=dict(Counter(t.outcome for t in traces)),
        exit_pages=dict(Counter(t.final_page_type or "unknown" for t in traces)),
        failures=dict(Counter(t.failure.kind for t in traces if t.failure)),
        exits=[
            Exit(
                persona_id=t.persona_id,
                outcome=t.outcome,
                furthest_stage=t.stages[-1] if t.stages else None,
                page_type=t.final_page_type,
                url=t.final_url,
                steps=len(t.steps),
                reason=t.reason,
            )
            for t in traces
        ],
    )
