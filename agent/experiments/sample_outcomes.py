"""What one sample says: whether an outcome (purchase, leave, a target clicked) happened, and the distributions
of its action and click types.

Shared by the experiment statistics (statistics.py, variant_comparison.py) and the comparison of two runs
(agent/comparison), so an outcome is read from a sample in one place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from agent.experiments.samples import Sample

ACTION_TYPES = ("click", "input", "terminate")


def _outcome(sample: Sample, outcome: str) -> bool:
    if outcome == "purchase":
        return sample.purchase
    if outcome == "leave":
        return sample.leave
    return bool(sample.target_clicks.get(outcome.removeprefix("target:"), False))


def _outcome_array(group: list[Sample], outcome: str) -> np.ndarray:
    return np.array([_outcome(s, outcome) for s in group], dtype=float)


def _distribution(values: list[str], order: Sequence[str] = ()) -> dict:
    counts = Counter(values)
    keys = list(order) + sorted(k for k in counts if k not in order)
    total = len(values)
    return {
        "n": total,
        "counts": {k: counts.get(k, 0) for k in keys},
        "shares": {k: (counts.get(k, 0) / total if total else 0.0) for k in keys},
    }


def _click_types(group: list[Sample]) -> list[str]:
    return [s.click_type for s in group if s.action_type == "click" and s.click_type]
