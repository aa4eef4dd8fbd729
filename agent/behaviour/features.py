"""What the behaviour model looks at before each action, as named features.

Only things the OPeRA benchmark shows a model at step t are always used (Wang et al. 2025, arXiv
2506.05606): the click types / inputs of steps 1..t-1, their timestamps and the persona. Things only a
live session or the full action table knows (seconds since the last action, scrolls and navigations
since it, the page type) are optional: each has a "known" indicator, and fitting masks them at random
so the model works with and without them. Features are named so that the shipped parameters say what
they weigh, and so that a model calibrated with more context (page types from the full release) loads
into the same code.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agent.behaviour.labels import INPUT, START

# Groups of labels whose counts so far describe where a session is (searching, comparing, buying).
COUNT_GROUPS: dict[str, frozenset[str]] = {
    "searching": frozenset({"search", INPUT, "suggested_term"}),
    "products": frozenset({"product_link"}),
    "options": frozenset({"product_option"}),
    "reviews": frozenset({"review"}),
    "cart": frozenset({"cart_side_bar", "cart_page_select", "quantity"}),
    "browsing": frozenset({"filter", "page_related"}),
    "navigation": frozenset({"nav_bar", "other"}),
}
STEP_BUCKETS: tuple[int, ...] = (0, 1, 2, 3, 4, 6, 9, 13, 21, 36)  # lower bounds
RUN_BUCKETS: tuple[int, ...] = (1, 2, 3, 5, 9)
SINCE_BUCKETS: tuple[int, ...] = (1, 2, 3, 5, 9)
FAST_GAP_S = 1.5


class HistoryItem(Protocol):
    @property
    def label(self) -> str: ...

    @property
    def timestamp(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class LiveContext:
    """Optional context a live session may know at prediction time (None = unknown)."""

    seconds_since_last: float | None = None
    scrolls_since_last: int | None = None
    navigations_since_last: int | None = None
    tabs_since_last: int | None = None
    page_type: str | None = None


NO_LIVE_CONTEXT = LiveContext()


def bucket(value: int, bounds: Sequence[int]) -> int:
    """The largest lower bound not above value."""
    chosen = bounds[0]
    for bound in bounds:
        if value >= bound:
            chosen = bound
        else:
            break
    return chosen


def history_features(history: Sequence[HistoryItem], live: LiveContext = NO_LIVE_CONTEXT) -> dict[str, float]:
    """Feature name -> value for predicting the action after `history` (steps 1..t-1)."""
    n = len(history)
    features: dict[str, float] = {}
    prev1 = history[-1].label if n >= 1 else START
    prev2 = history[-2].label if n >= 2 else START
    features[f"prev1={prev1}"] = 1.0
    features[f"prev2={prev2}"] = 1.0
    features[f"prev1={prev1}&prev2={prev2}"] = 1.0
    features[f"step>={bucket(n, STEP_BUCKETS)}"] = 1.0

    if n:
        run = 1
        while run < n and history[-1 - run].label == prev1:
            run += 1
        features[f"prev1={prev1}&run>={bucket(run, RUN_BUCKETS)}"] = 1.0

        counts = dict.fromkeys(COUNT_GROUPS, 0)
        last_seen: dict[str, int] = {}
        labels_seen = set()
        for index, item in enumerate(history):
            label = item.label
            labels_seen.add(label)
            for group, members in COUNT_GROUPS.items():
                if label in members:
                    counts[group] += 1
                    last_seen[group] = index
        for group, count in counts.items():
            if count:
                features[f"count:{group}"] = math.log1p(count)
        for group in ("searching", "products", "options"):
            if group in last_seen:
                features[f"since:{group}>={bucket(n - last_seen[group], SINCE_BUCKETS)}"] = 1.0
            else:
                features[f"never:{group}"] = 1.0
        features["distinct_labels"] = math.log1p(len(labels_seen))
        # This person's own style so far in the session: how often they repeat, how much of it was prev1.
        if n >= 2:
            repeats = sum(1 for i in range(1, n) if history[i].label == history[i - 1].label)
            features["repeat_rate"] = repeats / (n - 1)
            features[f"prev1={prev1}&repeat_rate"] = repeats / (n - 1)
        features["prev1_share"] = sum(1 for item in history if item.label == prev1) / n

        last_time = history[-1].timestamp
        if n >= 2 and last_time is not None and history[-2].timestamp is not None:
            gap = max(0.0, last_time - history[-2].timestamp)
            features["log_gap_before_last"] = math.log1p(gap) / 3.0
            # An action logged within a second of the one before it came with it (an input is logged
            # when its search is submitted), which says what kind of click the last one was.
            features[f"prev1={prev1}&gap={'instant' if gap < FAST_GAP_S else 'slow'}"] = 1.0
        elif n >= 2:
            # A history without times (a live twin, an API caller): fitting sees such copies of every
            # session too (agent/calibration/training_data.py), so this is a known state, not an unseen one.
            features["times_unknown"] = 1.0
        first_time = history[0].timestamp
        if last_time is not None and first_time is not None:
            features["log_elapsed"] = math.log1p(max(0.0, last_time - first_time)) / 5.0

    if live.seconds_since_last is not None:
        features["live:log_seconds_since_last"] = math.log1p(max(0.0, live.seconds_since_last)) / 3.0
        features["live:seconds_known"] = 1.0
    if live.scrolls_since_last is not None:
        features["live:raw_events_known"] = 1.0
        features["live:log_scrolls"] = math.log1p(live.scrolls_since_last) / 2.0
        features["live:log_navigations"] = math.log1p(live.navigations_since_last or 0)
        features["live:log_tabs"] = math.log1p(live.tabs_since_last or 0)
    if live.page_type:
        features[f"page={live.page_type}"] = 1.0
        features[f"page={live.page_type}&prev1={prev1}"] = 1.0
    return features
