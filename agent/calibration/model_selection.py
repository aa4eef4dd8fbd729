"""What calibration chooses by cross-validation: the model's strengths and scales, then its decision rule.

Steps 2-4 of `twinsim calibrate` (see calibrate.py): the action model's L2 strength by leave-users-out
log-loss, then the outcome model's; the persona-term scale by the summed log-loss of leave-users-out and
held-out-session folds, the per-person effect scale by held-out sessions (only seen people have one), the
label chain's share and smoothing, and each known person's own chain; finally the decision rule's biases,
tuned on out-of-fold predictions, with the cross-validated metrics they give.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import numpy as np

from agent.behaviour.labels import LABEL_INDEX, LABELS, PURCHASE, TERMINATE
from agent.calibration.cross_validation import fold_assignment, log_loss, out_of_fold_chain, out_of_fold_distributions
from agent.calibration.decision_tuning import DecisionRule, TuningSet, tune_rule
from agent.calibration.fitting import FitConfig
from agent.calibration.label_metrics import label_metrics
from agent.calibration.training_data import TrainingRows

Point = TypeVar("Point")

ACTION_C_GRID: tuple[float, ...] = (0.05, 0.1, 0.2)
OUTCOME_C_GRID: tuple[float, ...] = (0.03, 0.1, 0.3)
PERSONA_SCALE_GRID: tuple[float, ...] = (0.1, 0.3, 1.0)
PERSON_SCALE_GRID: tuple[float, ...] = (0.0, 0.3, 1.0, 3.0)
CHAIN_WEIGHT_GRID: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75)
CHAIN_STRENGTH_GRID: tuple[float, ...] = (0.5, 2.0, 8.0)
PERSON_CHAIN_STRENGTH_GRID: tuple[float, ...] = (0.0, 4.0, 16.0, 64.0)  # 0: no per-person chain
N_FOLDS = 5


@dataclass(frozen=True)
class Selection:
    action_c: float
    outcome_c: float
    persona_scale: float
    person_scale: float
    scores: dict
    chain_weight: float = 0.0
    chain_strength: float = 2.0
    person_chain_strength: float = 0.0

    def config(self, variant: str) -> FitConfig:
        """FitConfig of a variant: "persona", "no_persona" or "known_person" (persona + per-person effects)."""
        known = variant == "known_person"
        return FitConfig(
            self.action_c,
            self.outcome_c,
            self.persona_scale,
            variant != "no_persona",
            self.person_scale if known else 0.0,
            self.chain_weight,
            self.chain_strength,
            self.person_chain_strength if known else 0.0,
        )

    @property
    def knows_people(self) -> bool:
        """Whether there is anything per person to fit (the known-person variant)."""
        return self.person_scale > 0 or self.person_chain_strength > 0


def outcome_log_loss(distributions: np.ndarray, rows: TrainingRows) -> float:
    """Log-loss of buy vs leave among the scored rows where a session ends."""
    purchase, terminate = LABELS.index(PURCHASE), LABELS.index(TERMINATE)
    scored = ~np.isnan(distributions[:, 0]) & np.isin(rows.labels, [purchase, terminate])
    ends = distributions[scored][:, [purchase, terminate]]
    share = ends / ends.sum(axis=1, keepdims=True)
    picked = np.where(rows.labels[scored] == purchase, share[:, 0], share[:, 1])
    return float(-np.mean(np.log(np.clip(picked, 1e-12, None))))


def _grid_search(grid: Sequence[Point], loss_of: Callable[[Point], float | tuple[float, Any]]) -> tuple[Point, dict]:
    """The grid point of least loss (the first on ties) and every point's score, keyed by the point.

    `loss_of(point)` returns a loss, or (loss, what to record) when the record is more than the loss.
    """
    best, best_loss, recorded = None, None, {}
    for point in grid:
        result = loss_of(point)
        loss, record = result if isinstance(result, tuple) else (result, result)
        recorded[str(point)] = record
        if best_loss is None or loss < best_loss:
            best, best_loss = point, loss
    assert best is not None  # every grid has a point
    return best, recorded


def select_hyperparameters(rows: TrainingRows, seed: int, small: bool = False) -> Selection:
    """Strengths and persona scale by cross-validated log-loss (see the module docstring)."""
    by_user = fold_assignment(rows, "users", N_FOLDS, seed)
    by_session = fold_assignment(rows, "sessions", N_FOLDS, seed)
    action_grid = ACTION_C_GRID[1:2] if small else ACTION_C_GRID
    outcome_grid = OUTCOME_C_GRID[1:2] if small else OUTCOME_C_GRID
    scale_grid = PERSONA_SCALE_GRID[1:2] if small else PERSONA_SCALE_GRID
    person_grid = PERSON_SCALE_GRID[2:3] if small else PERSON_SCALE_GRID
    scores: dict = {}

    def action_loss(c: float) -> float:
        return log_loss(out_of_fold_distributions(rows, by_user, FitConfig(action_c=c, use_persona=False)), rows)

    action_c, scores["action_c"] = _grid_search(action_grid, action_loss)

    def outcome_loss(c: float) -> float:
        config = FitConfig(action_c=action_c, outcome_c=c, use_persona=False)
        return outcome_log_loss(out_of_fold_distributions(rows, by_user, config), rows)

    outcome_c, scores["outcome_c"] = _grid_search(outcome_grid, outcome_loss)

    persona_distributions: dict[float, tuple[np.ndarray, np.ndarray]] = {}  # kept for the chain's search

    def persona_loss(scale: float) -> tuple[float, dict]:
        config = FitConfig(action_c=action_c, outcome_c=outcome_c, persona_scale=scale, use_persona=True)
        persona_distributions[scale] = (
            out_of_fold_distributions(rows, by_user, config),
            out_of_fold_distributions(rows, by_session, config),
        )
        users_loss, sessions_loss = (log_loss(d, rows) for d in persona_distributions[scale])
        return users_loss + sessions_loss, {"users": users_loss, "sessions": sessions_loss}

    persona_scale, scores["persona_scale"] = _grid_search(scale_grid, persona_loss)

    # Per-person effects only exist for people seen in training, so only held-out sessions can judge them.
    person_distributions: dict[float, np.ndarray] = {}  # kept for the person chain's search

    def person_loss(scale: float) -> float:
        config = FitConfig(action_c, outcome_c, persona_scale, True, scale)
        person_distributions[scale] = out_of_fold_distributions(rows, by_session, config)
        return log_loss(person_distributions[scale], rows)

    person_scale, scores["person_scale"] = _grid_search(person_grid, person_loss)

    # The chain is mixed into fitted distributions: the persona search's out-of-fold fits at the chosen scale.
    models = persona_distributions[persona_scale]
    weight_grid = CHAIN_WEIGHT_GRID[2:3] if small else CHAIN_WEIGHT_GRID
    strength_grid = CHAIN_STRENGTH_GRID[1:2] if small else CHAIN_STRENGTH_GRID
    chains = {
        strength: [out_of_fold_chain(rows, folds, strength) for folds in (by_user, by_session)]
        for strength in strength_grid
    }

    def chain_loss(point: tuple[float, float]) -> float:
        weight, strength = point
        return sum(
            log_loss((1.0 - weight) * model + weight * chain, rows)
            for model, chain in zip(models, chains[strength], strict=True)
        )

    points = [(weight, strength) for weight in weight_grid for strength in strength_grid]
    (chain_weight, chain_strength), scores["chain"] = _grid_search(points, chain_loss)

    # A known person's own chain, on held-out sessions, mixed into the known-person model at the chosen weight.
    known = person_distributions[person_scale]
    person_chain_grid = PERSON_CHAIN_STRENGTH_GRID[2:3] if small else PERSON_CHAIN_STRENGTH_GRID

    def person_chain_loss(strength: float) -> float:
        chain = out_of_fold_chain(rows, by_session, chain_strength, strength)
        return log_loss((1.0 - chain_weight) * known + chain_weight * chain, rows)

    person_chain_strength, scores["person_chain"] = (
        _grid_search(person_chain_grid, person_chain_loss) if chain_weight > 0 else (0.0, {})
    )
    return Selection(
        action_c, outcome_c, persona_scale, person_scale, scores, chain_weight, chain_strength, person_chain_strength
    )


def previous_labels(rows: TrainingRows) -> np.ndarray:
    """The previous step's label index of every row (-1 at a session's first step), in row order."""
    return np.asarray([LABEL_INDEX.get(label, -1) for label in rows.previous], dtype=int)


def cross_validated_report(rows: TrainingRows, selection: Selection, seed: int) -> tuple[DecisionRule, dict]:
    """Decision biases tuned on out-of-fold predictions, and the cross-validated metrics they give.

    Held-out people are scored with the persona variant, held-out sessions of known people with the
    known-person variant (as at inference); both without persona terms for the ablation.
    """
    scored = ~rows.training_only
    previous = previous_labels(rows)[scored]
    report: dict = {}
    tuning_sets: list[TuningSet] = []
    per_scheme: dict[Literal["users", "sessions"], dict[str, np.ndarray]] = {}
    schemes: tuple[tuple[Literal["users", "sessions"], str], ...] = (("users", "persona"), ("sessions", "known_person"))
    for scheme, persona_variant in schemes:
        folds = fold_assignment(rows, scheme, N_FOLDS, seed)
        per_scheme[scheme] = {}
        for variant in (persona_variant, "no_persona"):
            distributions = out_of_fold_distributions(rows, folds, selection.config(variant))[scored]
            per_scheme[scheme]["persona" if variant != "no_persona" else "no_persona"] = distributions
            if variant != "no_persona":
                tuning_sets.append(TuningSet(distributions, rows.labels[scored], rows.is_last[scored], previous))
    rule, objective = tune_rule(tuning_sets)
    for scheme, variants in per_scheme.items():
        report[scheme] = {
            variant: label_metrics(rows.labels[scored], rule.decide(d, previous), rows.is_last[scored])
            for variant, d in variants.items()
        }
        report[scheme]["log_loss"] = {
            variant: float(-np.mean(np.log(np.clip(d[np.arange(len(d)), rows.labels[scored]], 1e-12, None))))
            for variant, d in variants.items()
        }
    report["decision_objective"] = objective
    return rule, report
