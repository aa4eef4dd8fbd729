"""How faithful the embedded brain is to real people it was not calibrated on. Writes benchmarks/results/fidelity.json.

Data: the 218 real OPeRA timelines and the personas of their 15 users (Wang et al. 2025, arXiv
2506.05606, CC-BY-4.0), in the benchmark's action space (page-free: persona and history only).

Two splits, five folds each: held-out users (every session of a person in one fold: the twin has never
seen this person) and held-out sessions (new sessions of people it has seen). Within every outer fold
everything is learned on the training folds only: the model's weights and its decision rule (tuned on
inner out-of-fold predictions of the training folds), the majority label, the first-step label of the
repeat baseline. Each variant gets its own decision rule, so the persona effect is not an artefact of a
rule tuned for the other. The regularisation strengths are the shipped ones (chosen by cross-validated
log-loss on all sessions), the one thing not re-chosen per fold.

Compared on the same steps: the model, the model without persona terms, repeating the previous action
(at a session's first step: the most common first action in training), and always the majority action.
The persona effect comes with a 95% interval from a paired bootstrap over sessions. Also scored: the same
model and rule on the same steps with the times removed from the histories, as the live simulator and most
API callers send them.

Run: .venv/bin/python benchmarks/fidelity.py
"""

from __future__ import annotations

import time

import numpy as np
from _common import SHARED_OPERA, write_result

from agent.behaviour.labels import LABELS
from agent.behaviour.params import load_params
from agent.calibration.calibrate import read_personas
from agent.calibration.cross_validation import fold_assignment, out_of_fold_distributions
from agent.calibration.decision_tuning import TuningSet, tune_rule
from agent.calibration.fitting import fit_variant, merged_features
from agent.calibration.label_metrics import action_type_f1_by_class, label_metrics
from agent.calibration.model_selection import Selection, previous_labels
from agent.calibration.timelines import read_timelines
from agent.calibration.training_data import TrainingRows, build_rows

N_FOLDS = 5
SEED = 0
BOOTSTRAP = 2000
METRICS = (
    "action_type_macro_f1",
    "click_type_weighted_f1",
    "outcome_accuracy",
    "outcome_weighted_f1",
    "fine_grained_accuracy",
    "action_type_weighted_f1",
)
MUST_BEAT = ("action_type_macro_f1", "click_type_weighted_f1", "outcome_accuracy")
UNTIMED = "model, histories without times"


def shipped_selection() -> Selection:
    hyper = load_params().meta["hyperparameters"]
    return Selection(
        hyper["action_c"],
        hyper["outcome_c"],
        hyper["persona_scale"],
        hyper["person_scale"],
        {},
        hyper.get("chain_weight", 0.0),
        hyper.get("chain_strength", 2.0),
        hyper.get("person_chain_strength", 0.0),
    )


def scored_previous(rows: TrainingRows) -> np.ndarray:
    return previous_labels(rows)[~rows.training_only]


def tuned_rule(train: TrainingRows, scheme: str, config):
    """The decision rule from inner out-of-fold predictions of the training folds only."""
    inner = fold_assignment(train, scheme, N_FOLDS, SEED)
    scored = ~train.training_only
    distributions = out_of_fold_distributions(train, inner, config)[scored]
    tuning = TuningSet(distributions, train.labels[scored], train.is_last[scored], scored_previous(train))
    rule, _ = tune_rule([tuning])
    return rule


def predict_fold(
    train: TrainingRows, tests: list[TrainingRows], scheme: str, config, distributions_out: list | None = None
) -> list[np.ndarray]:
    """One model and rule from the training folds, deciding every step of each test set given (the first test
    set's distributions are appended to `distributions_out` when given)."""
    rule = tuned_rule(train, scheme, config)
    variant = fit_variant(train, config)
    decided = []
    for test in tests:
        scored = test.subset(~test.training_only)
        distributions = np.asarray([variant.distribution(f).probabilities for f in merged_features(scored, config)])
        if distributions_out is not None and not decided:
            distributions_out.append(distributions)
        decided.append(rule.decide(distributions, scored_previous(test)))
    return decided


def first_steps(gold: np.ndarray, predicted: np.ndarray, distributions: np.ndarray, first: np.ndarray) -> dict:
    """What real people did first against what the twin did (most likely) and what it would draw (sample mode),
    with the total-variation distance of each mix from the real one."""

    def mix(labels: np.ndarray) -> np.ndarray:
        return np.bincount(labels, minlength=len(LABELS)) / max(1, len(labels))

    real, twin, drawn = mix(gold[first]), mix(predicted[first]), distributions[first].mean(axis=0)

    def shown(v):
        return {LABELS[i]: round(float(x), 3) for i, x in enumerate(v) if x >= 0.005}

    confusion: dict[str, dict[str, int]] = {}
    for g, p in zip(gold[first], predicted[first], strict=True):
        row = confusion.setdefault(LABELS[g], {})
        row[LABELS[p]] = row.get(LABELS[p], 0) + 1
    return {
        "sessions": int(first.sum()),
        "real": shown(real),
        "most_likely": shown(twin),
        "sample_mean": shown(drawn),
        "tv_most_likely": round(0.5 * float(np.abs(twin - real).sum()), 3),
        "tv_sample": round(0.5 * float(np.abs(drawn - real).sum()), 3),
        "confusion_real_to_twin": confusion,
    }


def baselines(train: TrainingRows, test: TrainingRows) -> dict[str, np.ndarray]:
    scored_train = ~train.training_only
    majority = int(np.bincount(train.labels[scored_train]).argmax())
    first_steps = scored_train & (previous_labels(train) < 0)
    first = int(np.bincount(train.labels[first_steps]).argmax())
    previous = scored_previous(test)
    n = int((~test.training_only).sum())
    return {"repeat-previous": np.where(previous >= 0, previous, first), "majority": np.full(n, majority)}


def paired_bootstrap(gold, a, b, is_last, sessions, rng) -> dict[str, list[float]]:
    """95% intervals of metric(a) - metric(b), resampling whole sessions."""
    unique = np.unique(sessions)
    index_of = {s: np.flatnonzero(sessions == s) for s in unique}
    draws = {m: [] for m in METRICS}
    for _ in range(BOOTSTRAP):
        picked = np.concatenate([index_of[s] for s in rng.choice(unique, size=len(unique))])
        ma = label_metrics(gold[picked], a[picked], is_last[picked])
        mb = label_metrics(gold[picked], b[picked], is_last[picked])
        for m in METRICS:
            draws[m].append(ma[m] - mb[m])
    return {
        m: [round(float(np.percentile(v, 2.5)), 4), round(float(np.percentile(v, 97.5)), 4)] for m, v in draws.items()
    }


def evaluate_scheme(rows: TrainingRows, untimed: TrainingRows, scheme: str, selection: Selection) -> dict:
    """`untimed`: the same steps with the times removed (one row each), as live twins send histories."""
    folds = fold_assignment(rows, scheme, N_FOLDS, SEED)
    untimed_folds = folds[~rows.training_only]
    persona_variant = "known_person" if scheme == "sessions" and selection.knows_people else "persona"
    systems = ("model", "model without persona", "repeat-previous", "majority", UNTIMED)
    predictions = {name: np.zeros(int((~rows.training_only).sum()), dtype=int) for name in systems}
    scored_index = np.cumsum(~rows.training_only) - 1
    model_distributions = np.zeros((int((~rows.training_only).sum()), len(LABELS)))
    for fold in range(N_FOLDS):
        train, test = rows.subset(folds != fold), rows.subset(folds == fold)
        positions = scored_index[(folds == fold) & ~rows.training_only]
        captured: list[np.ndarray] = []
        predictions["model"][positions], predictions[UNTIMED][positions] = predict_fold(
            train, [test, untimed.subset(untimed_folds == fold)], scheme, selection.config(persona_variant), captured
        )
        model_distributions[positions] = captured[0]
        predictions["model without persona"][positions] = predict_fold(
            train, [test], scheme, selection.config("no_persona")
        )[0]
        for name, labels in baselines(train, test).items():
            predictions[name][positions] = labels
    scored = ~rows.training_only
    gold, is_last, sessions = rows.labels[scored], rows.is_last[scored], rows.sessions[scored]
    results = {
        name: {m: round(v, 4) if isinstance(v, float) else v for m, v in label_metrics(gold, p, is_last).items()}
        | {"action_type_f1_by_class": {k: round(v, 4) for k, v in action_type_f1_by_class(gold, p).items()}}
        for name, p in predictions.items()
    }
    model = results["model"]
    beats = {base: {m: model[m] > results[base][m] for m in MUST_BEAT} for base in ("repeat-previous", "majority")}
    effect = {m: round(model[m] - results["model without persona"][m], 4) for m in METRICS}
    interval = paired_bootstrap(
        gold, predictions["model"], predictions["model without persona"], is_last, sessions, np.random.default_rng(SEED)
    )
    first = previous_labels(rows)[scored] < 0
    return {
        "systems": results,
        "model_beats_baselines": beats,
        "first_step": first_steps(gold, predictions["model"], model_distributions, first),
        "persona_effect": {"difference": effect, "bootstrap_95": interval},
        "persona_variant": persona_variant,
    }


def main() -> None:
    started = time.perf_counter()
    people = read_personas([SHARED_OPERA / "personas.jsonl"])
    sessions = read_timelines(SHARED_OPERA / "timelines.jsonl")
    rows = build_rows(sessions, people)
    untimed = build_rows([s.without_times() for s in sessions], people, copies=False)
    selection = shipped_selection()
    results = {scheme: evaluate_scheme(rows, untimed, scheme, selection) for scheme in ("users", "sessions")}
    write_result(
        "fidelity",
        {
            "data": "OPeRA timelines.jsonl + personas.jsonl (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0)",
            "task": "page-free next action (persona and history only), benchmark action space",
            "sessions": len(sessions),
            "steps": int((~rows.training_only).sum()),
            "folds": N_FOLDS,
            "seed": SEED,
            "hyperparameters": {
                "action_c": selection.action_c,
                "outcome_c": selection.outcome_c,
                "persona_scale": selection.persona_scale,
                "person_scale": selection.person_scale,
                "chain_weight": selection.chain_weight,
                "chain_strength": selection.chain_strength,
                "person_chain_strength": selection.person_chain_strength,
            },
            "results": results,
            "seconds": round(time.perf_counter() - started, 1),
        },
    )
    for scheme, result in results.items():
        print(f"held-out {scheme}:")
        for name, metrics in result["systems"].items():
            print(f"  {name:24s} " + "  ".join(f"{m}={metrics[m]:.3f}" for m in METRICS[:4]))
        print(f"  persona effect {result['persona_effect']['difference']}")
        first = result["first_step"]
        print(
            f"  first step: real {first['real']}\n    twin (most likely) {first['most_likely']} "
            f"TV {first['tv_most_likely']}"
            f"\n    twin (sample mean) {first['sample_mean']} TV {first['tv_sample']}"
        )


if __name__ == "__main__":
    main()
