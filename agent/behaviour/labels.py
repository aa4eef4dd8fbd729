"""The label space the behaviour model predicts: the 13 OPeRA click types, input and terminate.

OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) scores click / input / terminate, and clicks by
their click type; a session ends in a purchase click or a terminate. Scrolls, navigations and tab
switches are not actions there, so they are never labels here (they may be features).
"""

from __future__ import annotations

import numpy as np

from agent.page.click_types import CLICK_TYPES

INPUT = "input"
TERMINATE = "terminate"
START = "START"  # the "previous label" before a session's first action
PURCHASE = "purchase"

LABELS: tuple[str, ...] = (*CLICK_TYPES, INPUT, TERMINATE)
LABEL_INDEX: dict[str, int] = {label: i for i, label in enumerate(LABELS)}
HISTORY_LABELS: tuple[str, ...] = (START, *CLICK_TYPES, INPUT)

OUTCOMES: tuple[str, ...] = (PURCHASE, TERMINATE)


def action_type_of(label: str) -> str:
    """click / input / terminate for a label."""
    if label in (INPUT, TERMINATE):
        return label
    return "click"


def click_type_of_label(label: str) -> str | None:
    """The click type a label stands for, None for input and terminate."""
    return None if label in (INPUT, TERMINATE) else label


def outcome_of(label: str) -> str | None:
    """How a step would end a session: a purchase click or a terminate (None for anything else)."""
    if label == PURCHASE:
        return PURCHASE
    if label == TERMINATE:
        return TERMINATE
    return None


def bias_vector(biases: dict[str, float]) -> np.ndarray:
    """A per-label vector (LABELS order) from label -> value; labels not given are 0."""
    vector = np.zeros(len(LABELS))
    for label, value in biases.items():
        vector[LABEL_INDEX[label]] = float(value)
    return vector
