"""A multinomial logistic model over named features, evaluated with numpy alone.

Fitting happens in agent/calibration/ (scikit-learn); what ships is plain arrays in JSON, so a prediction is
a dictionary lookup per active feature and one small matrix-vector product: microseconds, no sklearn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LinearSoftmax:
    """softmax(bias + weights @ x) over `classes`, where x holds the named features."""

    classes: tuple[str, ...]
    vocabulary: dict[str, int]
    weights: np.ndarray  # (n_classes, n_features)
    bias: np.ndarray  # (n_classes,)

    def logits(self, features: dict[str, float]) -> np.ndarray:
        columns: list[int] = []
        values: list[float] = []
        vocabulary = self.vocabulary
        for name, value in features.items():
            column = vocabulary.get(name)
            if column is not None:
                columns.append(column)
                values.append(value)
        if not columns:
            return self.bias.copy()
        return self.bias + self.weights[:, columns] @ np.asarray(values)

    def probabilities(self, features: dict[str, float]) -> np.ndarray:
        return softmax(self.logits(features))

    def contributions(self, features: dict[str, float], class_index: int, top: int = 4) -> list[tuple[str, float]]:
        """The features that pushed one class up the most (for details and rationales)."""
        scored = []
        for name, value in features.items():
            column = self.vocabulary.get(name)
            if column is not None:
                scored.append((name, float(self.weights[class_index, column] * value)))
        scored.sort(key=lambda item: -item[1])
        return [(name, round(weight, 3)) for name, weight in scored[:top] if weight > 0]

    def to_json(self, digits: int = 5) -> dict:
        names = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        return {
            "classes": list(self.classes),
            "features": names,
            "weights": [[round(float(v), digits) for v in row] for row in self.weights],
            "bias": [round(float(v), digits) for v in self.bias],
        }

    @classmethod
    def from_json(cls, data: dict) -> LinearSoftmax:
        features = list(data["features"])
        weights = np.asarray(data["weights"], dtype=np.float64).reshape(len(data["classes"]), len(features))
        return cls(
            classes=tuple(data["classes"]),
            vocabulary={name: i for i, name in enumerate(features)},
            weights=weights,
            bias=np.asarray(data["bias"], dtype=np.float64),
        )


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max())
    return shifted / shifted.sum()
