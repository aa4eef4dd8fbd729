"""The comparison of two experiments (results.json): variants matched by name, twins paired by persona id and
instance when both runs' samples are there and add up to their results, each outcome rate and the task reached
compared as shares of twins in both runs.

One kind of run per module: the entry point and the Holm correction over every share are in run_comparison.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.comparison.comparison_error import ComparisonError
from agent.comparison.run_settings import experiment_settings, seed_note, settings_diff
from agent.comparison.share_metric import _metric, _pairing
from agent.experiments.bootstrap import _Bootstrap
from agent.experiments.sample_outcomes import _outcome
from agent.experiments.samples import Sample


def _compare_experiments(
    a: dict,
    b: dict,
    labels: tuple[str, str],
    samples: tuple[Sequence[Sample] | None, Sequence[Sample] | None],
    boot: _Bootstrap,
    alpha: float,
) -> dict:
    for document, label in ((a, labels[0]), (b, labels[1])):
        status = document.get("status", "done")
        if status != "done":
            raise ComparisonError(f"run {label} has not finished (status {status}); compare it once it is done")
        if not (document.get("analysis") or {}).get("variants"):
            raise ComparisonError(f"run {label} has no analysis (no samples were analysed)")
    described_a, described_b = a["analysis"]["variants"], b["analysis"]["variants"]
    common = [name for name in described_a if name in described_b]
    usable, sample_notes = [], []
    for document, given, side in ((a, samples[0], "A"), (b, samples[1], "B")):
        kept, note = _usable_samples(document, given, side)
        usable.append(kept)
        sample_notes += [note] if note else []

    variants = []
    for name in common:
        variants.append(_compare_variant(name, a, b, usable[0], usable[1], labels, boot, alpha))

    spec_a, spec_b = a["spec"], b["spec"]
    same_population = _same_population(spec_a, spec_b, usable[0], usable[1])
    notes = []
    if not common:
        notes.append(
            f"no variant name is in both runs ({', '.join(described_a)} vs {', '.join(described_b)}): there is "
            "nothing to set side by side"
        )
    only_a, only_b = [n for n in described_a if n not in described_b], [n for n in described_b if n not in described_a]
    if common and (only_a or only_b):
        notes.append(
            f"variants in one run only are left out: {', '.join(only_a) or 'none'} (only in run A), "
            f"{', '.join(only_b) or 'none'} (only in run B)"
        )
    if same_population is False:
        notes.append(
            "the populations differ: a difference may come from who the twins were, not only from what changed"
        )
    notes += seed_note(spec_a.get("seed"), spec_b.get("seed"))
    notes += sample_notes
    for document, side in ((a, "A"), (b, "B")):
        fallbacks = (document.get("cost") or {}).get("fallbacks")
        if fallbacks:
            notes.append(f"in run {side}, {fallbacks} decision(s) fell back to the embedded brain")
    return {
        "kind": "experiment",
        "runs": {"a": _experiment_run(a, labels[0]), "b": _experiment_run(b, labels[1])},
        "config": settings_diff(experiment_settings(spec_a), experiment_settings(spec_b)),
        "comparability": {
            "comparable": bool(common),
            "same_population": same_population,
            "same_seed": spec_a.get("seed") == spec_b.get("seed"),
            "variants_matched": common,
            "variants_only_in_a": only_a,
            "variants_only_in_b": only_b,
            "notes": notes,
        },
        "variants": variants,
    }


def _usable_samples(
    document: dict, samples: Sequence[Sample] | None, side: str
) -> tuple[dict[str, dict] | None, str | None]:
    """The run's samples by variant and (persona_id, instance), when they are the ones its analysis counted."""
    if samples is None:
        return None, None
    by_variant: dict[str, dict] = {}
    for sample in samples:
        key = (sample.persona_id, sample.instance)
        if key in by_variant.setdefault(sample.variant, {}):
            return None, f"run {side}'s samples repeat a twin: compared from its counts, as independent samples"
        by_variant[sample.variant][key] = sample
    for name, described in document["analysis"]["variants"].items():
        group = list(by_variant.get(name, {}).values())
        counted = all(
            rate["successes"] == sum(_outcome(s, outcome) for s in group)
            for outcome, rate in described["rates"].items()
        )
        if len(group) != described["n"] or not counted:
            return None, (
                f"run {side}'s samples do not add up to its results (variant {name}): compared from its "
                "counts, as independent samples"
            )
    return by_variant, None


def _compare_variant(
    name: str,
    a: dict,
    b: dict,
    samples_a: dict[str, dict] | None,
    samples_b: dict[str, dict] | None,
    labels: tuple[str, str],
    boot: _Bootstrap,
    alpha: float,
) -> dict:
    described_a, described_b = a["analysis"]["variants"][name], b["analysis"]["variants"][name]
    group_a = samples_a.get(name) if samples_a is not None else None
    group_b = samples_b.get(name) if samples_b is not None else None
    if group_a is None or group_b is None:
        paired, why = False, "without both runs' samples the twins cannot be matched"
    elif set(group_a) != set(group_b):
        paired, why = False, (f"{len(set(group_a) ^ set(group_b))} (persona id, instance) pair(s) ran in one run only")
    else:
        paired, why = (
            True,
            "every (persona id, instance) ran this variant in both runs: each twin is paired with itself",
        )
    keys = list(group_a) if group_a is not None else []
    keys_b = keys if paired else (list(group_b) if group_b is not None else [])

    def values(described: dict, group: dict | None, order: list, outcome: str) -> list[bool]:
        if group is None:
            rate = described["rates"][outcome]
            return [True] * rate["successes"] + [False] * (rate["n"] - rate["successes"])
        return [bool(_outcome(group[k], outcome)) for k in order]

    outcomes = [o for o in described_a["rates"] if o in described_b["rates"]]
    metrics = [
        _metric(
            outcome,
            _outcome_label(outcome),
            values(described_a, group_a, keys, outcome),
            values(described_b, group_b, keys_b, outcome),
            paired,
            boot,
            alpha,
            scope=name,
        )
        for outcome in outcomes
    ]
    task_a, task_b = _variant_task(a, name), _variant_task(b, name)
    if task_a is not None and task_b is not None:

        def reached(task: dict, group: dict | None, order: list) -> Sequence[bool | None]:
            if group is None:
                return [True] * task["reached"] + [False] * (task["judged"] - task["reached"])
            return [group[k].task_reached for k in order]

        metrics.append(
            _metric(
                "task",
                "reached the task",
                reached(task_a, group_a, keys),
                reached(task_b, group_b, keys_b),
                paired,
                boot,
                alpha,
                scope=name,
            )
        )
    only = sorted(set(described_a["rates"]) ^ set(described_b["rates"]))
    return {
        "variant": name,
        "n_a": described_a["n"],
        "n_b": described_b["n"],
        "n_personas_a": described_a.get("n_personas"),
        "n_personas_b": described_b.get("n_personas"),
        "pairing": _pairing(paired, why),
        "metrics": metrics,
        "outcomes_in_one_run_only": only,
    }


def _variant_task(document: dict, name: str) -> dict | None:
    return ((document.get("task") or {}).get("variants") or {}).get(name)


def _same_population(
    spec_a: dict, spec_b: dict, samples_a: dict[str, dict] | None, samples_b: dict[str, dict] | None
) -> bool:
    """The same personas: from the samples when both runs have them, else from the population specs."""
    if samples_a is not None and samples_b is not None:
        personas = [{s.persona_id for group in by.values() for s in group.values()} for by in (samples_a, samples_b)]
        return personas[0] == personas[1]
    return (spec_a.get("population"), spec_a.get("population_size")) == (
        spec_b.get("population"),
        spec_b.get("population_size"),
    )


def _experiment_run(document: dict, label: str) -> dict:
    spec = document["spec"]
    return {
        "label": label,
        "kind": "experiment",
        "name": spec.get("name"),
        "status": document.get("status"),
        "variants": list(document["analysis"]["variants"]),
        "population_size": spec.get("population_size"),
        "samples": (document.get("cost") or {}).get("samples"),
    }


def _outcome_label(outcome: str) -> str:
    return (
        f"clicked {outcome.removeprefix('target:')}"
        if outcome.startswith("target:")
        else {"purchase": "purchased", "leave": "left"}.get(outcome, outcome)
    )
