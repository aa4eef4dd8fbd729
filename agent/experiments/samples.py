"""One twin's run through one variant of an A/B experiment: the unit every statistic and theme is computed on.

Kept apart from the runner so the statistics, the themes and the report can be tested on hand-made samples.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class Sample(BaseModel):
    """What one twin (a persona, instanced `instance` of k times with seeded sampling) did on one variant."""

    variant: str
    persona_id: str
    instance: int  # 0..k-1
    action_type: Literal["click", "input", "terminate"]  # first action on the variant's first page
    click_type: str | None  # OPeRA click type of that click
    element: str | None  # the name acted on (click/input), None for terminate
    purchase: bool  # made a purchase click (click_type == "purchase") at any step of the variant
    leave: bool  # terminated at any step
    target_clicks: dict[str, bool] = {}  # target element name -> clicked at any step
    rationale: str = ""
    segments: dict[str, str] = {}  # segment dimension -> bucket, e.g. {"conscientiousness": "high"}
    steps: int = 1
    fallbacks: int = 0  # decisions of this run the embedded brain made because the requested brain failed
