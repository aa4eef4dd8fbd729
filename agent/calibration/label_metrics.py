"""The OPeRA metrics at the level of labels, fast enough to tune decision rules on thousands of steps.

Definitions follow the paper's protocol (Wang et al. 2025, arXiv 2506.05606) as written in the data
README: action-type F1 over click / input / terminate; click-type weighted F1 over the steps whose
true action is a click (a non-click prediction counts as a wrong click type); fine-grained accuracy
(click type, or input / terminate); session outcome (purchase click vs terminate) at each session's
last step. Exact match needs element names, which these labels do not carry; agent/evaluation
computes it on real actions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.behaviour.labels import INPUT, LABEL_INDEX, LABELS, PURCHASE, TERMINATE

_TYPE_OF_LABEL = np.asarray(
    [0 if label not in (INPUT, TERMINATE) else (1 if label == INPUT else 2) for label in LABELS]
)
_OUTCOME_OF_LABEL = np.asarray(
    [0 if label == PURCHASE else (1 if label == TERMINATE else 2) for label in LABELS]
)  # 0 purchase, 1 terminate, 2 neither
_IS_CLICK = _TYPE_OF_LABEL == 0


def f1_per_class(gold: np.ndarray, pred: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """(F1 per class, gold support per class) with F1 = 0 where undefined (scikit-learn's zero_division=0)."""
    support = np.bincount(gold, minlength=n_classes).astype(float)
    predicted = np.bincount(pred, minlength=n_classes).astype(float)
    true_positive = np.bincount(gold[gold == pred], minlength=n_classes).astype(float)
    denominator = support + predicted
    f1 = np.divide(2 * true_positive, denominator, out=np.zeros(n_classes), where=denominator > 0)
    return f1[:n_classes], support[:n_classes]


def weighted(f1: np.ndarray, support: np.ndarray) -> float:
    total = support.sum()
    return float((f1 * support).sum() / total) if total else 0.0


def label_metrics(
    gold: Sequence[int] | np.ndarray, pred: Sequence[int] | np.ndarray, is_last: Sequence[bool] | np.ndarray
) -> dict[str, float]:
    """Metrics for label indices (labels.LABELS order); is_last marks each session's last step."""
    gold = np.asarray(gold, dtype=int)
    pred = np.asarray(pred, dtype=int)
    is_last = np.asarray(is_last, dtype=bool)
    if gold.shape != pred.shape or gold.shape != is_last.shape:
        raise ValueError("gold, pred and is_last must have the same length")
    if gold.size == 0:
        raise ValueError("no steps to score")

    gold_type, pred_type = _TYPE_OF_LABEL[gold], _TYPE_OF_LABEL[pred]
    type_f1, type_support = f1_per_class(gold_type, pred_type, 3)

    clicks = _IS_CLICK[gold]
    n_labels = len(LABELS)
    click_pred = np.where(_IS_CLICK[pred[clicks]], pred[clicks], n_labels)  # n_labels = "not a click"
    click_f1, click_support = f1_per_class(gold[clicks], click_pred, n_labels + 1)

    last_gold = _OUTCOME_OF_LABEL[gold[is_last]]
    last_pred = _OUTCOME_OF_LABEL[pred[is_last]]
    outcome_f1, outcome_support = f1_per_class(last_gold, last_pred, 3)

    return {
        "n": int(gold.size),
        "action_type_macro_f1": float(type_f1.mean()),
        "action_type_weighted_f1": weighted(type_f1, type_support),
        "click_type_weighted_f1": weighted(click_f1, click_support),
        "fine_grained_accuracy": float((gold == pred).mean()),
        "outcome_accuracy": float((last_gold == last_pred).mean()) if last_gold.size else 0.0,
        "outcome_weighted_f1": weighted(outcome_f1, outcome_support),
        "sessions": int(is_last.sum()),
    }


def action_type_f1_by_class(gold: Sequence[int] | np.ndarray, pred: Sequence[int] | np.ndarray) -> dict[str, float]:
    """F1 of click, input and terminate apart: where the action-type macro F1 is won or lost."""
    f1, _ = f1_per_class(_TYPE_OF_LABEL[np.asarray(gold, dtype=int)], _TYPE_OF_LABEL[np.asarray(pred, dtype=int)], 3)
    return {"click": float(f1[0]), "input": float(f1[1]), "terminate": float(f1[2])}


def label_indices(labels: Sequence[str]) -> np.ndarray:
    return np.asarray([LABEL_INDEX[label] for label in labels], dtype=int)
