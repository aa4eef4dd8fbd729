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
   (steps 2-4: model_selection.py)
5. final fits with and without persona terms; from the action table, element names, name priors,
   element-choice weights and page terms (action_table_learning.py)
6. params.json with sorted keys and rounded floats: the same data and seed give the same bytes
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from agent.behaviour.label_chain import LabelChain
from agent.behaviour.labels import LABELS, PURCHASE
from agent.behaviour.params import PARAMS_FORMAT, PARAMS_PATH, dump_params
from agent.behaviour.person_chain import PersonChain
from agent.behaviour.persona_features import person_key
from agent.calibration.action_table_learning import learn_from_action_table
from agent.calibration.fitting import fit_variant
from agent.calibration.model_selection import cross_validated_report, select_hyperparameters
from agent.calibration.recorded import merge_sessions, sessions_of
from agent.calibration.sessions import BehaviourSession
from agent.calibration.timelines import read_timelines
from agent.calibration.training_data import build_rows
from agent.opera_data import opera_data_dir
from agent.recorded_sessions import read_action_table
from personas.persona import Persona

CITATION = "OPeRA: Wang et al. 2025, arXiv 2506.05606, dataset NEU-HAI/OPeRA, CC-BY-4.0"
DIGITS = 5


class CalibrationError(ValueError):
    """The data given to calibrate cannot produce a model (missing files, no sessions, ...)."""


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
    return sessions_of(read_action_table(path))


def _rounded(value: Any, digits: int = DIGITS) -> Any:
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {str(k): _rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, np.generic):
        return _rounded(value.item(), digits)
    return value


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

    `timelines` and `personas` default to the OPeRA data folder (agent.opera_data); `actions` (the full release's action
    table: a parquet file or directory) and `users` (its user table) are optional extras.
    `small_search` fits one point of each grid (for tests): the shipped file uses the full search.
    BLAS runs on one thread here: multi-threaded sums change order with the machine's load, which moved
    the fifth digit of a few weights between runs, and the promise is the same bytes for the same data.
    """
    with threadpool_limits(limits=1):
        return _calibrate(timelines, personas, actions, users, out, seed, small_search)


def _calibrate(
    timelines: Path | None,
    personas: Path | None,
    actions: Path | None,
    users: Path | None,
    out: Path,
    seed: int,
    small_search: bool,
) -> dict:
    data_dir = opera_data_dir()
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
    persona_paths = [
        p for p in (personas_path, Path(users) if users is not None else None) if p is not None and p.exists()
    ]
    people = read_personas(persona_paths)

    rows = build_rows(sessions, people)
    selection = select_hyperparameters(rows, seed, small=small_search)
    rule, report = cross_validated_report(rows, selection, seed)
    with_persona = fit_variant(rows, selection.config("persona"))
    without_persona = fit_variant(rows, selection.config("no_persona"))
    known_person = fit_variant(rows, selection.config("known_person")) if selection.knows_people else None

    learned = learn_from_action_table(recorded, people, without_persona)

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
            "no_persona": {
                "action": without_persona.action.to_json(DIGITS),
                "outcome": without_persona.outcome.to_json(DIGITS),
            },
            **(
                {
                    "known_person": {
                        "action": known_person.action.to_json(DIGITS),
                        "outcome": known_person.outcome.to_json(DIGITS),
                    }
                }
                if known_person is not None
                else {}
            ),
        },
        "label_chain": with_persona.chain.to_json(DIGITS) if isinstance(with_persona.chain, LabelChain) else None,
        "person_chain": known_person.chain.to_json()
        if known_person is not None and isinstance(known_person.chain, PersonChain)
        else None,
        **learned,
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
        "element_weights_fitted": bool(learned["element_choice"]),
    }
