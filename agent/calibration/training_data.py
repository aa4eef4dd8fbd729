"""Turn benchmark sessions into training rows: the features before each step and the step's label.

Each step yields up to three rows that share its weight: the benchmark's view (history with times, no
live context), and two training-only copies, one with the live context its source knows (seconds since
the last action, scrolls and navigations since it, the page type) and one without any times. So one
fitted model serves the benchmark (which shows times but never live context), live sessions that pass
their context, and twins or API callers whose history carries no times at all (the simulator's), which
would otherwise look like nothing seen in training. Only the benchmark's rows are ever scored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from agent.behaviour.features import NO_LIVE_CONTEXT, LiveContext, history_features
from agent.behaviour.labels import LABEL_INDEX, START
from agent.behaviour.persona_features import persona_vector
from agent.calibration.sessions import BehaviourSession, BehaviourStep
from personas.persona import Persona


@dataclass(frozen=True)
class TrainingRows:
    history: list[dict[str, float]]  # history (and live) features of each row
    persona: list[dict[str, float]]  # the persona vector of each row's person ({} when unknown)
    labels: np.ndarray  # label index (labels.LABELS order)
    weights: np.ndarray
    users: np.ndarray  # user prefix of each row
    sessions: np.ndarray  # index of each row's session in the input list
    is_last: np.ndarray  # the row predicts its session's last step
    training_only: np.ndarray  # a copy with live context or without times: trained on, never scored
    previous: np.ndarray  # the label before the row's step (START at a session's first step)

    def __len__(self) -> int:
        return len(self.history)

    def subset(self, mask: np.ndarray) -> TrainingRows:
        indices = np.flatnonzero(mask)
        return TrainingRows(
            history=[self.history[i] for i in indices],
            persona=[self.persona[i] for i in indices],
            labels=self.labels[indices],
            weights=self.weights[indices],
            users=self.users[indices],
            sessions=self.sessions[indices],
            is_last=self.is_last[indices],
            training_only=self.training_only[indices],
            previous=self.previous[indices],
        )


def live_context_before(steps: tuple[BehaviourStep, ...], t: int) -> LiveContext:
    """What a live observer would have known just before step t."""
    step = steps[t]
    seconds = None
    before = steps[t - 1].timestamp if t >= 1 else None
    if before is not None and step.timestamp is not None:
        seconds = max(0.0, step.timestamp - before)
    return LiveContext(
        seconds_since_last=seconds,
        scrolls_since_last=step.scrolls_before,
        navigations_since_last=step.navigations_before,
        tabs_since_last=step.tabs_before,
        page_type=step.page_type,
    )


def build_rows(sessions: Iterable[BehaviourSession], personas: dict[str, Persona], copies: bool = True) -> TrainingRows:
    """One row per step of every session, plus its training-only copies when `copies` is set."""
    history_rows: list[dict[str, float]] = []
    persona_rows: list[dict[str, float]] = []
    labels: list[int] = []
    weights: list[float] = []
    users: list[str] = []
    session_index: list[int] = []
    is_last: list[bool] = []
    training_only: list[bool] = []
    previous: list[str] = []
    for s_index, session in enumerate(sessions):
        vector = persona_vector(personas.get(session.user_prefix))
        steps = session.steps
        timed = copies and any(step.timestamp is not None for step in steps)
        untimed = session.without_times().steps if timed else steps
        for t, step in enumerate(steps):
            context = live_context_before(steps, t) if copies else NO_LIVE_CONTEXT
            variants = [(history_features(steps[:t]), False)]
            if context != NO_LIVE_CONTEXT:
                variants.append((history_features(steps[:t], context), True))
            if timed and t >= 2:  # before the second step there is no time between actions to miss
                variants.append((history_features(untimed[:t]), True))
            for features, copy in variants:
                history_rows.append(features)
                persona_rows.append(vector)
                labels.append(LABEL_INDEX[step.label])
                weights.append(1.0 / len(variants))
                users.append(session.user_prefix)
                session_index.append(s_index)
                is_last.append(t == len(steps) - 1)
                training_only.append(copy)
                previous.append(steps[t - 1].label if t else START)
    return TrainingRows(
        history=history_rows,
        persona=persona_rows,
        labels=np.asarray(labels, dtype=int),
        weights=np.asarray(weights, dtype=float),
        users=np.asarray(users),
        sessions=np.asarray(session_index, dtype=int),
        is_last=np.asarray(is_last, dtype=bool),
        training_only=np.asarray(training_only, dtype=bool),
        previous=np.asarray(previous),
    )
