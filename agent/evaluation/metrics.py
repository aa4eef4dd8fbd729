"""The OPeRA next-action metrics, computed exactly as the paper defines them (definitions in docs/evaluation.md).

OPeRA: Wang et al. 2025, arXiv 2506.05606; the same metrics are used by Customer-R1 (arXiv 2510.07230).
Plain Python, no scikit-learn at run time; tests check every figure against scikit-learn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agent.actions import ACTION_TYPES, Action, ClickAction, InputAction, same_action
from agent.page.click_types import infer_click_type

NOT_CLICK = {"input": "<input>", "terminate": "<terminate>"}
ERROR_KINDS = (
    "did_not_terminate",
    "did_not_click",
    "did_not_input",
    "input_wrong_field",
    "input_wrong_text",
    "clicked_wrong_element",
)


@dataclass(frozen=True)
class StepRecord:
    session_id: str
    step: int  # 0-based index within the session
    is_last: bool  # the last step of its session
    gold: Action
    gold_click_type: str | None  # click type of the gold click (None for input / terminate)
    pred: Action
    pred_click_type: str | None  # click type of the predicted click (None for input / terminate)


def _ordered_labels(gold: Sequence[str], pred: Sequence[str], preferred: Sequence[str] = ()) -> list[str]:
    present = set(gold) | set(pred)
    return [label for label in preferred if label in present] + sorted(present - set(preferred))


def classification(gold: Sequence[str], pred: Sequence[str], preferred: Sequence[str] = ()) -> dict:
    """Per-class precision/recall/F1 with macro and support-weighted averages (scikit-learn semantics,
    zero_division=0: a label never predicted has precision 0), plus accuracy and the confusion matrix."""
    labels = _ordered_labels(gold, pred, preferred)
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, pred, strict=True):
        matrix[index[g]][index[p]] += 1
    per_class, total = {}, len(gold)
    for i, label in enumerate(labels):
        tp = matrix[i][i]
        support = sum(matrix[i])
        predicted = sum(row[i] for row in matrix)
        precision = tp / predicted if predicted else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[label] = {"precision": precision, "recall": recall, "f1": f1, "support": support}
    macro = sum(c["f1"] for c in per_class.values()) / len(labels) if labels else None
    weighted = sum(c["f1"] * c["support"] for c in per_class.values()) / total if total else None
    accuracy = sum(matrix[i][i] for i in range(len(labels))) / total if total else None
    return {
        "labels": labels,
        "matrix": matrix,
        "per_class": per_class,
        "macro_f1": macro,
        "weighted_f1": weighted,
        "accuracy": accuracy,
    }


def _click_type(action: Action, click_type: str | None) -> str | None:
    """The click type of a click (inferred from its name when the record has none); None for other actions."""
    if not isinstance(action, ClickAction):
        return None
    return click_type or infer_click_type(action.name)


def _click_label(action: Action, click_type: str | None) -> str:
    """Click-type F1 label of a prediction: its click type, or "<input>" / "<terminate>" when it is no click."""
    return click_type or infer_click_type(action.name) if isinstance(action, ClickAction) else NOT_CLICK[action.type]


def _fine_label(action: Action, click_type: str | None) -> str:
    return click_type or infer_click_type(action.name) if isinstance(action, ClickAction) else action.type


def _outcome(action: Action, click_type: str | None, gold: bool) -> str:
    """How a session's last step ends it: "purchase", "terminate", else "other" (gold) / "continue" (predicted)."""
    if action.type == "terminate":
        return "terminate"
    if action.type == "click" and _click_type(action, click_type) == "purchase":
        return "purchase"
    return "other" if gold else "continue"


def _errors(records: Sequence[StepRecord]) -> dict:
    """OPeRA's Table 6 breakdown: each wrong prediction falls in exactly one kind; fractions are of all steps."""
    counts: Counter[str] = Counter()
    for r in records:
        g, p = r.gold, r.pred
        if g.type == "terminate" and p.type != "terminate":
            counts["did_not_terminate"] += 1
        elif g.type == "click" and p.type != "click":
            counts["did_not_click"] += 1
        elif g.type == "input" and p.type != "input":
            counts["did_not_input"] += 1
        elif isinstance(g, InputAction) and isinstance(p, InputAction) and p.name != g.name:
            counts["input_wrong_field"] += 1
        elif isinstance(g, InputAction) and isinstance(p, InputAction) and p.text != g.text:
            counts["input_wrong_text"] += 1
        elif isinstance(g, ClickAction) and isinstance(p, ClickAction) and p.name != g.name:
            counts["clicked_wrong_element"] += 1
    n = len(records)
    return {kind: {"count": counts[kind], "fraction": counts[kind] / n if n else None} for kind in ERROR_KINDS}


def compute_metrics(records: Sequence[StepRecord]) -> dict:
    """The OPeRA report: exact match, action-type F1, click-type F1, fine-grained accuracy, session outcome."""
    n = len(records)
    action = classification([r.gold.type for r in records], [r.pred.type for r in records], ACTION_TYPES)
    clicks = [r for r in records if r.gold.type == "click"]
    click = classification(
        [_click_label(r.gold, r.gold_click_type) for r in clicks],
        [_click_label(r.pred, r.pred_click_type) for r in clicks],
    )
    fine = classification(
        [_fine_label(r.gold, r.gold_click_type) for r in records],
        [_fine_label(r.pred, r.pred_click_type) for r in records],
    )
    last = [r for r in records if r.is_last]
    outcome = classification(
        [_outcome(r.gold, r.gold_click_type, True) for r in last],
        [_outcome(r.pred, r.pred_click_type, False) for r in last],
        ("purchase", "terminate"),
    )
    gold_click_types = Counter(_click_type(r.gold, r.gold_click_type) for r in clicks)
    pred_click_types = Counter(_click_type(r.pred, r.pred_click_type) for r in records if r.pred.type == "click")
    return {
        "n": n,
        "n_sessions": len({r.session_id for r in records}),
        "exact_match": sum(same_action(r.gold, r.pred) for r in records) / n if n else None,
        "action_type_macro_f1": action["macro_f1"],
        "action_type_weighted_f1": action["weighted_f1"],
        "click_type_weighted_f1": click["weighted_f1"],
        "fine_grained_accuracy": fine["accuracy"],
        "outcome_accuracy": outcome["accuracy"],
        "outcome_weighted_f1": outcome["weighted_f1"],
        "per_class": {
            "action_type": action["per_class"],
            "click_type": click["per_class"],
            "outcome": outcome["per_class"],
        },
        "confusion": {
            "action_type": {"labels": action["labels"], "matrix": action["matrix"]},
            "click_type": {"labels": click["labels"], "matrix": click["matrix"]},
            "outcome": {"labels": outcome["labels"], "matrix": outcome["matrix"]},
        },
        "distributions": {
            "action_type": {
                "gold": dict(Counter(r.gold.type for r in records)),
                "predicted": dict(Counter(r.pred.type for r in records)),
            },
            "click_type": {"gold": dict(gold_click_types), "predicted": dict(pred_click_types)},
        },
        "errors": _errors(records),
    }
