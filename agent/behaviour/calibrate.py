"""`twinsim calibrate`: fit the behaviour model on real OPeRA sessions and write params.json.

Data (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0): the timelines (real sessions of the full action
table, click types and times, no names) and the personas of the people in them; optionally the full
release's action table (names, typed text, pages) and user table. Steps:

1. sessions in the benchmark's action space; one training row per step, plus training-only copies with
   live context and without times (training_data.py)
2. action-model L2 strength by leave-users-out cross-validation (log-loss), then the outcome model's
3. persona-term scale by the summed log-loss of leave-users-out and held-out-session cross-validation,
   then the per-person effect scale by held-out-session cross-validation (only seen people have one),
   then the label chain's share in the mixture and its smoothing, by the same summed log-loss, then the
   smoothing of each known person's own chain by held-out-session log-loss
4. the most-likely decision rule (log biases for terminate, purchase, input) on out-of-fold predictions
5. final fits with and without persona terms; from the action table, element names, name priors and
   element-choice weights
6. params.json with sorted keys and rounded floats: the same data and seed give the same bytes
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from agent.behaviour.cross_validation import fold_assignment, log_loss, out_of_fold_chain, out_of_fold_distributions
from agent.behaviour.decision_tuning import DecisionRule, TuningSet, tune_rule
from agent.behaviour.fitting import FitConfig, fit_variant
from agent.behaviour.label_metrics import label_metrics
from agent.behaviour.labels import LABEL_INDEX, LABELS, PURCHASE, TERMINATE
from agent.behaviour.naming_learning import learn_name_priors, learn_naming
from agent.behaviour.page_free_names import NamingTables
from agent.behaviour.page_terms import PRIORS
from agent.behaviour.params import DEFAULT_NAME_PRIORS, PARAMS_FORMAT, PARAMS_PATH, dump_params
from agent.behaviour.person_chain import PersonChain
from agent.behaviour.persona_features import person_key
from agent.behaviour.recorded import merge_sessions, sessions_of
from agent.behaviour.sessions import BehaviourSession
from agent.behaviour.timelines import read_timelines
from agent.behaviour.training_data import TrainingRows, build_rows
from personas.persona import Persona

CITATION = "OPeRA: Wang et al. 2025, arXiv 2506.05606, dataset NEU-HAI/OPeRA, CC-BY-4.0"
ACTION_C_GRID: tuple[float, ...] = (0.05, 0.1, 0.2)
OUTCOME_C_GRID: tuple[float, ...] = (0.03, 0.1, 0.3)
PERSONA_SCALE_GRID: tuple[float, ...] = (0.1, 0.3, 1.0)
PERSON_SCALE_GRID: tuple[float, ...] = (0.0, 0.3, 1.0, 3.0)
CHAIN_WEIGHT_GRID: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75)
CHAIN_STRENGTH_GRID: tuple[float, ...] = (0.5, 2.0, 8.0)
PERSON_CHAIN_STRENGTH_GRID: tuple[float, ...] = (0.0, 4.0, 16.0, 64.0)  # 0: no per-person chain
N_FOLDS = 5
DIGITS = 5


class CalibrationError(ValueError):
    """The data given to calibrate cannot produce a model (missing files, no sessions, ...)."""


def default_data_dir() -> Path:
    """$TWINSIM_OPERA_DATA, else the shared OPeRA folder beside the repository (../shared/data/opera)."""
    configured = os.environ.get("TWINSIM_OPERA_DATA")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data" / "opera"


def read_personas(paths: Sequence[Path]) -> dict[str, Persona]:
    """Personas keyed by user prefix; a later file (the full user table) overrides an earlier one."""
    from personas.sources import load_personas

    keyed: dict[str, Persona] = {}
    for path in paths:
        for persona in load_personas(path):
            key = person_key(persona.id)
            if key:
                keyed[key] = persona
    return keyed


def read_action_sessions(path: Path) -> list[BehaviourSession]:
    from agent.evaluation.recorded_sessions import read_action_table

    return sessions_of(read_action_table(path))


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
        return FitConfig(self.action_c, self.outcome_c, self.persona_scale, variant != "no_persona",
                         self.person_scale if known else 0.0, self.chain_weight, self.chain_strength,
                         self.person_chain_strength if known else 0.0)

    @property
    def knows_people(self) -> bool:
        """Whether there is anything per person to fit (the known-person variant)."""
        return self.person_scale > 0 or self.person_chain_strength > 0


def _rounded(value, digits: int = DIGITS):
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {str(k): _rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, np.generic):
        return _rounded(value.item(), digits)
    return value


def outcome_log_loss(distributions: np.ndarray, rows: TrainingRows) -> float:
    """Log-loss of buy vs leave among the scored rows where a session ends."""
    purchase, terminate = LABELS.index(PURCHASE), LABELS.index(TERMINATE)
    scored = ~np.isnan(distributions[:, 0]) & np.isin(rows.labels, [purchase, terminate])
    ends = distributions[scored][:, [purchase, terminate]]
    share = ends / ends.sum(axis=1, keepdims=True)
    picked = np.where(rows.labels[scored] == purchase, share[:, 0], share[:, 1])
    return float(-np.mean(np.log(np.clip(picked, 1e-12, None))))


def _grid_search(grid: Sequence[float], loss_of) -> tuple[float, dict]:
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
        persona_distributions[scale] = (out_of_fold_distributions(rows, by_user, config),
                                        out_of_fold_distributions(rows, by_session, config))
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
    chains = {strength: [out_of_fold_chain(rows, folds, strength) for folds in (by_user, by_session)]
              for strength in strength_grid}

    def chain_loss(point: tuple[float, float]) -> float:
        weight, strength = point
        return sum(log_loss((1.0 - weight) * model + weight * chain, rows)
                   for model, chain in zip(models, chains[strength]))

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
    return Selection(action_c, outcome_c, persona_scale, person_scale, scores, chain_weight, chain_strength,
                     person_chain_strength)


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
    per_scheme: dict[str, dict[str, np.ndarray]] = {}
    for scheme, persona_variant in (("users", "persona"), ("sessions", "known_person")):
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


def _expected_labels(variant):
    """What the history-only model expects at step t (name priors are corrections to it)."""
    from agent.behaviour.features import history_features

    def expected(session: BehaviourSession, t: int) -> np.ndarray:
        return variant.distribution(history_features(session.steps[:t])).probabilities

    return expected


def calibrate(
    timelines: Path | None = None,
    personas: Path | None = None,
    actions: Path | None = None,
    users: Path | None = None,
    out: Path = PARAMS_PATH,
    seed: int = 0,
    small_search: bool = False,
) -> dict:
    """Fit everything and write `out`; returns a report of what was fitted and how well it does.

    `timelines` and `personas` default to the shared OPeRA data; `actions` (the full release's action
    table: a parquet file or directory) and `users` (its user table) are optional extras.
    `small_search` fits one point of each grid (for tests): the shipped file uses the full search.
    BLAS runs on one thread here: multi-threaded sums change order with the machine's load, which moved
    the fifth digit of a few weights between runs, and the promise is the same bytes for the same data.
    """
    with threadpool_limits(limits=1):
        return _calibrate(timelines, personas, actions, users, out, seed, small_search)


def _calibrate(timelines, personas, actions, users, out, seed, small_search) -> dict:
    data_dir = default_data_dir()
    timelines = Path(timelines) if timelines is not None else data_dir / "timelines.jsonl"
    personas_path = Path(personas) if personas is not None else data_dir / "personas.jsonl"
    sessions: list[BehaviourSession] = read_timelines(timelines) if timelines.exists() else []
    if not timelines.exists() and actions is None:
        raise CalibrationError(f"timelines file not found: {timelines} (and no --actions given)")
    recorded: list[BehaviourSession] = []
    if actions is not None:
        recorded = read_action_sessions(Path(actions))
        sessions = merge_sessions(recorded, sessions)
    if not sessions:
        raise CalibrationError("no sessions with a click or an input in the data given")
    persona_paths = [p for p in (personas_path, Path(users) if users is not None else None) if p is not None and p.exists()]
    people = read_personas(persona_paths)

    rows = build_rows(sessions, people)
    selection = select_hyperparameters(rows, seed, small=small_search)
    rule, report = cross_validated_report(rows, selection, seed)
    with_persona = fit_variant(rows, selection.config("persona"))
    without_persona = fit_variant(rows, selection.config("no_persona"))
    known_person = fit_variant(rows, selection.config("known_person")) if selection.knows_people else None

    naming = NamingTables()
    name_priors = DEFAULT_NAME_PRIORS
    element_weights: dict[str, float] = {}
    page_terms = {"source": "prior", "coefficients": PRIORS.to_json()}
    if recorded:
        naming = learn_naming(recorded)
        learned = learn_name_priors(recorded, _expected_labels(without_persona))
        name_priors = learned or DEFAULT_NAME_PRIORS
        element_weights = learn_element_weights(recorded, people)
        page_terms = learn_page_terms(recorded, people, without_persona) or page_terms

    users_with_persona = sorted({s.user_prefix for s in sessions if s.user_prefix in people})
    source = {
        "timelines": timelines.name if timelines.exists() else None,
        "actions": Path(actions).name if actions is not None else None,
        "persona_files": [p.name for p in persona_paths],
        "sessions": len(sessions),
        "steps": int((~rows.training_only).sum()),
        "users": len({s.user_prefix for s in sessions}),
        "users_with_persona": len(users_with_persona),
        "purchase_sessions": sum(1 for s in sessions if s.outcome == PURCHASE),
        "seed": seed,
    }
    params = {
        "format": PARAMS_FORMAT,
        "citation": CITATION,
        "labels": list(LABELS),
        "source": source,
        "hyperparameters": {
            "action_c": selection.action_c,
            "outcome_c": selection.outcome_c,
            "persona_scale": selection.persona_scale,
            "person_scale": selection.person_scale,
            "chain_weight": selection.chain_weight,
            "chain_strength": selection.chain_strength,
            "person_chain_strength": selection.person_chain_strength,
            "search": _rounded(selection.scores),
        },
        "cross_validation": _rounded(report),
        "decision": {"bias": rule.biases, "repeat_bias": rule.repeat_bias, "start_bias": rule.start_biases},
        "variants": {
            "persona": {"action": with_persona.action.to_json(DIGITS), "outcome": with_persona.outcome.to_json(DIGITS)},
            "no_persona": {"action": without_persona.action.to_json(DIGITS), "outcome": without_persona.outcome.to_json(DIGITS)},
            **(
                {"known_person": {"action": known_person.action.to_json(DIGITS), "outcome": known_person.outcome.to_json(DIGITS)}}
                if known_person is not None
                else {}
            ),
        },
        "label_chain": with_persona.chain.to_json(DIGITS) if with_persona.chain is not None else None,
        "person_chain": known_person.chain.to_json() if known_person is not None and isinstance(known_person.chain, PersonChain) else None,
        "naming": naming.to_json(),
        "name_priors": name_priors,
        "element_choice": element_weights,
        "page_terms": page_terms,
    }
    out = Path(out)
    dump_params(params, out)
    return {
        "out": str(out),
        "bytes": out.stat().st_size,
        "source": source,
        "hyperparameters": params["hyperparameters"],
        "decision": params["decision"],
        "cross_validation": params["cross_validation"],
        "learned_names": bool(recorded),
        "element_weights_fitted": bool(element_weights),
    }


def learn_element_weights(recorded: Sequence[BehaviourSession], people: dict[str, Persona]) -> dict[str, float]:
    """Element-choice weights from the action table's pages (empty when pages are missing or too few)."""
    from agent.behaviour.element_learning import choice_sets, fit_element_weights
    from personas.sensitivities import sensitivities

    memory_texts = {
        key: [text for text in (p.self_description, p.interview_summary) if text] for key, p in people.items()
    }
    sets = choice_sets(recorded, memory_texts, {key: sensitivities(p) for key, p in people.items()})
    return fit_element_weights(sets) or {}


def learn_page_terms(recorded: Sequence[BehaviourSession], people: dict[str, Persona], variant) -> dict | None:
    """Page-term coefficients fitted on the action table's pages (None when pages are missing or too few)."""
    from agent.behaviour.page_index import build_index
    from agent.behaviour.page_term_fitting import fit_page_terms, page_steps
    from agent.observation import parse_page
    from personas.sensitivities import sensitivities

    def allowed_of(observation) -> np.ndarray:
        allowed = build_index(observation).allowed.copy()
        allowed[LABEL_INDEX[PURCHASE]] &= observation.facts.can_buy
        return allowed

    steps = page_steps(recorded, people, _expected_labels(variant), lambda html, url: parse_page(html, url=url),
                       sensitivities, allowed_of)
    fitted = fit_page_terms(steps)
    if fitted is None:
        return None
    return {"source": "fitted", "steps": len(steps), "coefficients": fitted.to_json()}
