"""Out-of-fold predictions on held-out people or held-out sessions, for choosing and reporting.

Leave-users-out folds keep every session of a person in one fold, so a score says how the model does
for someone it has never seen; held-out-session folds say how it does on new sessions of known people.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from agent.behaviour.label_chain import LabelChain
from agent.behaviour.labels import LABELS
from agent.behaviour.person_chain import PersonChain
from agent.calibration.fitting import FitConfig, fit_chain, fit_person_chain, fit_variant, merged_features
from agent.calibration.training_data import TrainingRows

Scheme = Literal["users", "sessions"]


def fold_assignment(rows: TrainingRows, scheme: Scheme, n_folds: int = 5, seed: int = 0) -> np.ndarray:
    """A fold number per row. Users are packed largest first (by steps, not counting the training-only
    copies) into the lightest fold (deterministic)."""
    if scheme == "users":
        users = np.unique(rows.users)
        counts = np.asarray([np.count_nonzero((rows.users == user) & ~rows.training_only) for user in users])
        order = sorted(range(len(users)), key=lambda i: (-counts[i], users[i]))
        load = np.zeros(n_folds)
        fold_of_user: dict[str, int] = {}
        for i in order:
            fold = int(np.argmin(load))
            fold_of_user[str(users[i])] = fold
            load[fold] += counts[i]
        return np.asarray([fold_of_user[str(user)] for user in rows.users])
    if scheme == "sessions":
        sessions = np.unique(rows.sessions)
        permutation = np.random.default_rng(seed).permutation(sessions)
        fold_of_session = {int(session): rank % n_folds for rank, session in enumerate(permutation)}
        return np.asarray([fold_of_session[int(session)] for session in rows.sessions])
    raise ValueError(f"unknown cross-validation scheme {scheme!r}; expected 'users' or 'sessions'")


def out_of_fold_distributions(rows: TrainingRows, folds: np.ndarray, config: FitConfig) -> np.ndarray:
    """P(label) for every benchmark row, each from a model fitted on the other folds.

    Training-only copies (live context, no times) get NaN: they are trained on, never scored.
    """
    distributions = np.full((len(rows), len(LABELS)), np.nan)
    for fold in np.unique(folds):
        test = folds == fold
        variant = fit_variant(rows.subset(~test), config)
        scored_mask = test & ~rows.training_only
        features = merged_features(rows.subset(scored_mask), config)
        for row, row_features in zip(np.flatnonzero(scored_mask), features, strict=True):
            distributions[row] = variant.distribution(row_features).probabilities
    return distributions


def out_of_fold_chain(
    rows: TrainingRows, folds: np.ndarray, strength: float, person_strength: float = 0.0
) -> np.ndarray:
    """The label chain's P(label) for every benchmark row, each fitted on the other folds
    (refined by each known person's own chain when person_strength > 0)."""
    distributions = np.full((len(rows), len(LABELS)), np.nan)
    for fold in np.unique(folds):
        test = folds == fold
        train = rows.subset(~test)
        label_chain = fit_chain(train, strength)
        chain: LabelChain | PersonChain = label_chain
        if person_strength > 0:
            chain = fit_person_chain(train, label_chain, person_strength)
        for row in np.flatnonzero(test & ~rows.training_only):
            distributions[row] = chain.probabilities({**rows.history[row], **rows.persona[row]})
    return distributions


def log_loss(distributions: np.ndarray, rows: TrainingRows) -> float:
    """Mean negative log-likelihood of the true labels over the scored rows."""
    scored = ~np.isnan(distributions[:, 0])
    picked = distributions[scored, rows.labels[scored]]
    return float(-np.mean(np.log(np.clip(picked, 1e-12, None))))
