"""The click-type sequence itself: what real people did next after each label, smoothed toward the overall mix.

Why: the logistic action model spreads its evidence over many features under one L2 penalty, and so it
all but never names the rare labels that follow themselves (a second cart_page_select, filter or
quantity click). A first-order chain over labels keeps those transitions at their observed rates. The
behaviour model mixes the two (model.py); the chain's weight and smoothing are chosen by cross-validated
log-loss (agent/calibration/model_selection.py). Measured on held-out OPeRA users (Wang et al. 2025,
arXiv 2506.05606, CC-BY-4.0) in docs/benchmarks.md.

Contexts are feature names (`prev1=<label>`, START before a session's first action), so the chain reads
the same feature dictionary as the logistic model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from agent.behaviour.labels import LABELS


def context_feature(previous_label: str) -> str:
    return f"prev1={previous_label}"


@dataclass(frozen=True)
class LabelChain:
    """P(next label | previous label): counts plus `strength` pseudo-counts of the overall label shares."""

    transitions: dict[str, np.ndarray]  # context feature -> probabilities over labels.LABELS
    overall: np.ndarray  # for a context never seen in calibration
    strength: float

    @classmethod
    def fit(cls, pairs: Iterable[tuple[str, int]], strength: float) -> LabelChain:
        """From (context feature, next label index) pairs."""
        counts: dict[str, np.ndarray] = {}
        for context, label in pairs:
            counts.setdefault(context, np.zeros(len(LABELS)))[label] += 1.0
        if not counts:
            raise ValueError("no transitions to fit a label chain on")
        total = sum(counts.values(), np.zeros(len(LABELS)))
        overall = (total + 0.5) / (total.sum() + 0.5 * len(LABELS))  # every label stays possible
        transitions = {
            context: (row + strength * overall) / (row.sum() + strength) for context, row in sorted(counts.items())
        }
        return cls(transitions, overall, strength)

    def probabilities(self, features: dict[str, float]) -> np.ndarray:
        """The next-label distribution for the context present in `features`."""
        for context, row in self.transitions.items():
            if context in features:
                return row
        return self.overall

    def to_json(self, digits: int = 5) -> dict:
        return {
            "strength": self.strength,
            "overall": [round(float(v), digits) for v in self.overall],
            "transitions": {k: [round(float(v), digits) for v in row] for k, row in self.transitions.items()},
        }

    @classmethod
    def from_json(cls, data: dict) -> LabelChain:
        return cls(
            transitions={k: np.asarray(v, dtype=np.float64) for k, v in data["transitions"].items()},
            overall=np.asarray(data["overall"], dtype=np.float64),
            strength=float(data["strength"]),
        )
