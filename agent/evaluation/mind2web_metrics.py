"""Mind2Web's metrics: element accuracy, operation F1, step success rate and task success rate, per split.

The protocol is Mind2Web's (Deng et al. 2023, NeurIPS), as Multimodal-Mind2Web / SeeAct (Zheng et al. 2024,
arXiv 2401.01614) report it, and as the MindAct evaluation code computes it:

- element accuracy: the chosen element is one of the step's `pos_candidates` (by backend_node_id);
- operation F1: token-level F1 between the predicted and the true operation strings, "CLICK", "TYPE <value>" or
  "SELECT <value>": the strings are split on whitespace into sets, tokens that are a single punctuation character
  are dropped, two empty sets score 1, one empty set 0;
- step success: the element is right and the operation F1 is 1 (the same tokens);
- a step whose true element did not survive cleaning (`pos_candidates` empty) scores 0 on all three, as MindAct's
  code scores it;
- task success: every step of the task succeeded.

Figures are averaged per task, then over tasks (the "macro" average the Mind2Web README asks to compare with);
the per-step ("micro") averages are given beside them.
"""

from __future__ import annotations

import string
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_PUNCTUATION = frozenset(string.punctuation)


def operation_string(op: str | None, value: str | None) -> str:
    """'CLICK', 'TYPE <value>' or 'SELECT <value>' ('' for no operation: a twin that left)."""
    if not op:
        return ""
    return op if op == "CLICK" else f"{op} {value or ''}".strip()


def _tokens(text: str) -> set[str]:
    return {token for token in text.strip().split() if token not in _PUNCTUATION}


def operation_f1(predicted: str, gold: str) -> float:
    """Token-set F1 of two operation strings, as Mind2Web's evaluation computes it."""
    pred, true = _tokens(predicted), _tokens(gold)
    if not pred and not true:
        return 1.0
    if not pred or not true:
        return 0.0
    hits = len(pred & true)
    if hits == 0:
        return 0.0
    precision, recall = hits / len(pred), hits / len(true)
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class StepScore:
    split: str
    annotation_id: str
    element_correct: bool
    op_f1: float
    has_positive: bool  # False: pos_candidates was empty (scored 0 everywhere)

    @property
    def step_success(self) -> bool:
        return self.element_correct and self.op_f1 == 1.0


def score_step(
    split: str,
    annotation_id: str,
    predicted_node: str | None,
    predicted_op: str,
    positive_nodes: set[str],
    gold_op: str,
) -> StepScore:
    if not positive_nodes:
        return StepScore(split, annotation_id, False, 0.0, False)
    return StepScore(
        split,
        annotation_id,
        predicted_node is not None and predicted_node in positive_nodes,
        operation_f1(predicted_op, gold_op),
        True,
    )


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def split_metrics(scores: Iterable[StepScore]) -> dict[str, dict]:
    """Per split: macro (per task, then over tasks) and micro (per step) element accuracy, operation F1 and step
    success rate, task success rate, and the counts."""
    by_split: dict[str, list[StepScore]] = defaultdict(list)
    for score in scores:
        by_split[score.split].append(score)
    out: dict[str, dict] = {}
    for split, rows in by_split.items():
        tasks: dict[str, list[StepScore]] = defaultdict(list)
        for row in rows:
            tasks[row.annotation_id].append(row)

        def macro(value: Callable[[StepScore], float], tasks: dict[str, list[StepScore]] = tasks) -> float | None:
            return _mean([mean for steps in tasks.values() if (mean := _mean([value(r) for r in steps])) is not None])

        out[split] = {
            "n_steps": len(rows),
            "n_tasks": len(tasks),
            "steps_without_positive": sum(not r.has_positive for r in rows),
            "element_accuracy": macro(lambda r: float(r.element_correct)),
            "operation_f1": macro(lambda r: r.op_f1),
            "step_success_rate": macro(lambda r: float(r.step_success)),
            "task_success_rate": _mean([float(all(r.step_success for r in steps)) for steps in tasks.values()]),
            "micro": {
                "element_accuracy": _mean([float(r.element_correct) for r in rows]),
                "operation_f1": _mean([r.op_f1 for r in rows]),
                "step_success_rate": _mean([float(r.step_success) for r in rows]),
            },
        }
    return out
