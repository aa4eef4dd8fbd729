"""A known person's own label chain: what this person did after each label, smoothed toward everyone.

Why: people differ most in their habits between clicks (one reads review after review, another goes
from a product straight to the cart), and for someone whose sessions were calibrated on, their own
transitions say more than any survey answer. The logistic model's per-person terms shift a label's
odds everywhere; this shifts them after the label where the person actually does it. Held-out
sessions of the OPeRA timelines (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) choose the smoothing
(agent/calibration/model_selection.py) and measure the gain (docs/benchmarks.md). Unseen people get the
shared chain unchanged.

    P(next | person, prev1) = (count(person, prev1, next) + s * P_shared(next | prev1)) / (count(person, prev1) + s)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from agent.behaviour.label_chain import LabelChain
from agent.behaviour.labels import LABELS
from agent.behaviour.persona_features import person_feature


@dataclass(frozen=True)
class PersonChain:
    """The shared chain, refined by the counts of the person named in the features (`person=<prefix>`)."""

    shared: LabelChain
    counts: dict[str, dict[str, np.ndarray]]  # person feature -> context feature -> next-label counts
    strength: float

    @classmethod
    def fit(cls, shared: LabelChain, triples: Iterable[tuple[str, str, int]], strength: float) -> PersonChain:
        """From (person feature, context feature, next label index) triples."""
        counts: dict[str, dict[str, np.ndarray]] = {}
        for person, context, label in triples:
            counts.setdefault(person, {}).setdefault(context, np.zeros(len(LABELS)))[label] += 1.0
        return cls(shared, counts, strength)

    def probabilities(self, features: dict[str, float]) -> np.ndarray:
        shared = self.shared.probabilities(features)
        own = self.counts.get(person_feature(features) or "")
        if own is None:
            return shared
        row = next((row for context, row in own.items() if context in features), None)
        if row is None:
            return shared
        return (row + self.strength * shared) / (row.sum() + self.strength)

    def knows(self, person_feature: str) -> bool:
        return person_feature in self.counts

    def to_json(self) -> dict:
        """Counts as integers, so the file stays small and exact; the shared chain is stored once elsewhere."""
        return {
            "strength": self.strength,
            "counts": {
                person: {context: [int(v) for v in row] for context, row in sorted(by_context.items())}
                for person, by_context in sorted(self.counts.items())
            },
        }

    @classmethod
    def from_json(cls, shared: LabelChain, data: dict) -> PersonChain:
        counts = {
            person: {context: np.asarray(row, dtype=np.float64) for context, row in by_context.items()}
            for person, by_context in data["counts"].items()
        }
        return cls(shared, counts, float(data["strength"]))
