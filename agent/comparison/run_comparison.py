"""Two runs side by side: what differs in how they were set up, and whether their outcomes differ beyond noise.

Pure functions on two run documents of the same kind: experiments' results.json (agent/experiments/results.py)
or simulations' report.json (agent/simulation/run.py). Each outcome is a share of twins: a funnel stage
reached, a way the run ended, the task reached (simulations); a variant's purchase, leave, target or task rate,
variants matched by name (experiments). Each share comes with its Wilson interval in each run, the difference
B - A with a percentile bootstrap interval, and a test from agent/experiments/significance_tests.py: McNemar on
pairs when the same twins ran in both runs (matched by persona id; in experiments by persona id and instance, which
needs both runs' samples), otherwise the two-proportion z-test, or Fisher's exact test when an expected count is
below 5. All p-values of a comparison are Holm-corrected together; "beyond noise" means the corrected p-value is
below alpha.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.comparison.run_settings import (
    experiment_settings,
    settings_diff,
    simulation_settings,
)
from agent.experiments.bootstrap import _Bootstrap
from agent.experiments.sample_outcomes import _outcome
from agent.experiments.samples import Sample
from agent.experiments.significance_tests import _independent_binary, _multipletests, _paired_binary

ALPHA = 0.05
N_BOOTSTRAP = 2000
OUTCOME_ORDER = ("left", "purchased", "task_reached", "max_steps", "error")  # agent/simulation/trace.py Outcome
UNPAIRED_TEST = "two-proportion z-test, or Fisher's exact test when an expected count is below 5"
PAIRED_TEST = "McNemar on the pairs (exact binomial when fewer than 25 pairs disagree)"


class ComparisonError(ValueError):
    """The two runs cannot be compared (not run documents, not finished, of different kinds); the message says why."""


def run_kind(document: object, label: str = "the run") -> str:
    """'experiment' (results.json) or 'simulation' (report.json); ComparisonError for anything else."""
    if isinstance(document, dict):
        if isinstance(document.get("spec"), dict) and "analysis" in document:
            return "experiment"
        if all(isinstance(document.get(k), t) for k, t in (("config", dict), ("funnel", dict), ("traces", list))):
            return "simulation"
    raise ComparisonError(
        f"{label} is neither an experiment's results (spec, analysis) nor a simulation's report "
        "(config, funnel, traces)"
    )


def compare_runs(
    a: dict,
    b: dict,
    *,
    labels: tuple[str, str] = ("A", "B"),
    samples: tuple[Sequence[Sample] | None, Sequence[Sample] | None] = (None, None),
    alpha: float = ALPHA,
    seed: int = 0,
) -> dict:
    """The comparison of run B with run A, JSON-serialisable. `samples` are experiments' samples (samples.jsonl,
    or the API's store), used to pair twins; without them experiments are compared as independent samples."""
    kinds = run_kind(a, f"run {labels[0]}"), run_kind(b, f"run {labels[1]}")
    if kinds[0] != kinds[1]:
        raise ComparisonError(
            f"run {labels[0]} is {_a(kinds[0])} and run {labels[1]} is {_a(kinds[1])}; compare two "
            "experiments or two simulations"
        )
    boot = _Bootstrap(N_BOOTSTRAP, 1 - alpha, seed)
    try:
        if kinds[0] == "experiment":
            comparison = _compare_experiments(a, b, labels, samples, boot, alpha)
        else:
            comparison = _compare_simulations(a, b, labels, boot, alpha)
    except (KeyError, TypeError, AttributeError) as error:  # a hand-edited or truncated document
        raise ComparisonError(f"a run document is malformed ({type(error).__name__}: {error})") from None
    tests = [m for m in _metrics(comparison) if m.get("p_value") is not None]
    if tests:
        reject, adjusted, _, _ = _multipletests([m["p_value"] for m in tests], alpha=alpha, method="holm")
        for metric, p_adj, rej in zip(tests, adjusted, reject, strict=True):
            metric["p_adjusted"], metric["beyond_noise"] = float(p_adj), bool(rej)
    comparison["beyond_noise"] = [
        _sentence(m, scope) for scope, m in _scoped_metrics(comparison) if m.get("beyond_noise")
    ]
    comparison["settings"] = {
        "alpha": alpha,
        "rate_interval": "Wilson score",
        "correction": "holm",
        "n_tests": len(tests),
        "difference_interval": f"percentile bootstrap of B - A, {N_BOOTSTRAP} draws, seed {seed} (paired draws "
        "resample "
        "twins)",
        "tests": {"paired": PAIRED_TEST, "unpaired": UNPAIRED_TEST},
    }
    return comparison


# -- simulations -----------------------------------------------------------------------------------------------


def _compare_simulations(a: dict, b: dict, labels: tuple[str, str], boot: _Bootstrap, alpha: float) -> dict:
    twins_a, twins_b = _twins(a, labels[0]), _twins(b, labels[1])
    only_a, only_b = sorted(set(twins_a) - set(twins_b)), sorted(set(twins_b) - set(twins_a))
    paired = not only_a and not only_b
    order_a, order_b = list(twins_a), list(twins_a) if paired else list(twins_b)
    stages = _union([r["stage"] for r in a["funnel"]["reached"]], [r["stage"] for r in b["funnel"]["reached"]])
    seen = {t["outcome"] for t in (*twins_a.values(), *twins_b.values())}
    outcomes = [o for o in _union(OUTCOME_ORDER, sorted(seen)) if o in seen]
    traces_a, traces_b = [twins_a[pid] for pid in order_a], [twins_b[pid] for pid in order_b]

    metrics = []
    for stage in stages:
        metrics.append(
            _metric(
                f"stage:{stage}",
                f"reached {stage}",
                [stage in t["stages"] for t in traces_a],
                [stage in t["stages"] for t in traces_b],
                paired,
                boot,
                alpha,
            )
        )
    for outcome in outcomes:
        metrics.append(
            _metric(
                f"outcome:{outcome}",
                f"ended {outcome.replace('_', ' ')}",
                [t["outcome"] == outcome for t in traces_a],
                [t["outcome"] == outcome for t in traces_b],
                paired,
                boot,
                alpha,
            )
        )
    if a["config"].get("task") or b["config"].get("task"):
        metrics.append(
            _metric(
                "task",
                "reached the task",
                [_task_reached(t) for t in traces_a],
                [_task_reached(t) for t in traces_b],
                paired,
                boot,
                alpha,
            )
        )

    settings_a, settings_b = simulation_settings(a["config"]), simulation_settings(b["config"])
    notes = []
    if not paired:
        notes.append(
            f"the personas differ ({len(only_a)} only in run A, {len(only_b)} only in run B): the "
            "runs are compared as independent samples, and a difference may come from who browsed"
        )
    notes += _seed_note(a["config"].get("seed"), b["config"].get("seed"))
    return {
        "kind": "simulation",
        "runs": {"a": _simulation_run(a, labels[0]), "b": _simulation_run(b, labels[1])},
        "config": settings_diff(settings_a, settings_b),
        "comparability": {
            "comparable": True,
            "same_personas": paired,
            "same_seed": a["config"].get("seed") == b["config"].get("seed"),
            "personas_only_in_a": only_a,
            "personas_only_in_b": only_b,
            "notes": notes,
        },
        "pairing": _pairing(
            paired,
            "every persona ran in both simulations: each twin is paired with itself by persona id"
            if paired
            else "not the same personas in both simulations",
        ),
        "metrics": metrics,
        "counts": {
            key: _side_by_side(a["funnel"].get(key) or {}, b["funnel"].get(key) or {})
            for key in ("furthest", "outcomes", "exit_pages", "failures")
        },
        "mean_steps": {"a": _mean_steps(twins_a), "b": _mean_steps(twins_b)},
        "task": {"a": _task_summary(a.get("task")), "b": _task_summary(b.get("task"))},
    }


def _twins(document: dict, label: str) -> dict[str, dict]:
    twins: dict[str, dict] = {}
    for trace in document["traces"]:
        if trace["persona_id"] in twins:
            raise ComparisonError(f"run {label} has two traces of persona {trace['persona_id']!r}")
        twins[trace["persona_id"]] = trace
    if not twins:
        raise ComparisonError(f"run {label} has no twin traces")
    return twins


def _task_reached(trace: dict) -> bool | None:
    return (trace.get("task") or {}).get("reached")


def _mean_steps(twins: dict[str, dict]) -> float:
    return float(np.mean([len(t.get("steps") or []) for t in twins.values()]))


def _task_summary(task: dict | None) -> dict | None:
    if not task:
        return None
    return {k: task.get(k) for k in ("goal", "judged", "reached", "share", "median_step")}


def _simulation_run(document: dict, label: str) -> dict:
    return {
        "label": label,
        "kind": "simulation",
        "url": document["config"].get("url"),
        "twins": document["funnel"].get("twins"),
        "started_at": document.get("started_at"),
        "finished_at": document.get("finished_at"),
    }


# -- experiments -----------------------------------------------------------------------------------------------


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
    notes += _seed_note(spec_a.get("seed"), spec_b.get("seed"))
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


# -- one share in both runs ------------------------------------------------------------------------------------


def _metric(
    key: str,
    label: str,
    a: Sequence[bool | None],
    b: Sequence[bool | None],
    paired: bool,
    boot: _Bootstrap,
    alpha: float,
    scope: str = "",
) -> dict:
    """The share of twins for which `key` holds, in A and B; None values (not judged) are left out, and a pair
    with a None on either side is dropped."""
    if paired:
        kept = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
        a, b = [x for x, _ in kept], [y for _, y in kept]
    else:
        a, b = [x for x in a if x is not None], [y for y in b if y is not None]
    values_a, values_b = np.array(a, dtype=float), np.array(b, dtype=float)
    row = {
        "metric": key,
        "label": label,
        "a": _share(values_a, alpha),
        "b": _share(values_b, alpha),
        "paired": paired,
        "difference": None,
        "difference_ci_low": None,
        "difference_ci_high": None,
        "test": None,
        "statistic": None,
        "p_value": None,
        "p_adjusted": None,
        "beyond_noise": False,
    }
    if not len(values_a) or not len(values_b):
        return row | {
            "reason": "no twin was judged in "
            + ("either run" if not len(values_a) and not len(values_b) else "run A" if not len(values_a) else "run B")
        }
    result = _paired_binary(values_a, values_b) if paired else _independent_binary(values_a, values_b)
    low: float | None
    high: float | None
    low, high = boot.difference(values_a, values_b, paired, f"compare|{scope}|{key}")
    if min(len(values_a), len(values_b)) < 2:  # one twin: no spread to resample
        low = high = None
    return row | {
        "difference": float(values_b.mean() - values_a.mean()),
        "difference_ci_low": low,
        "difference_ci_high": high,
        "test": result["test"],
        "statistic": result["statistic"],
        "p_value": result["p_value"],
        "table": {_ab(k): v for k, v in result["table"].items()},
    }


def _share(values: np.ndarray, alpha: float) -> dict:
    n, successes = len(values), int(values.sum())
    if not n:
        return {"successes": 0, "n": 0, "rate": None, "ci_low": None, "ci_high": None}
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return {"successes": successes, "n": n, "rate": successes / n, "ci_low": float(low), "ci_high": float(high)}


def _ab(key: str) -> str:
    """significance_tests.py names the sides control and variant; here they are run A and run B."""
    return key.replace("control", "a").replace("variant", "b")


# -- shared ----------------------------------------------------------------------------------------------------


def _pairing(paired: bool, why: str) -> dict:
    return {"paired": paired, "test": PAIRED_TEST if paired else UNPAIRED_TEST, "why": why}


def _seed_note(seed_a: object, seed_b: object) -> list[str]:
    if seed_a == seed_b:
        return []
    return [
        (
            f"the seeds differ ({seed_a} vs {seed_b}): the twins' own random draws differ too, which is part of the "
            "noise the tests allow for"
        )
    ]


def _union(first: Sequence[str], second: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def _side_by_side(a: dict, b: dict) -> dict:
    return {key: {"a": a.get(key, 0), "b": b.get(key, 0)} for key in _union(list(a), list(b))}


def _metrics(comparison: dict) -> list[dict]:
    return [m for _, m in _scoped_metrics(comparison)]


def _scoped_metrics(comparison: dict) -> list[tuple[str | None, dict]]:
    if comparison["kind"] == "simulation":
        return [(None, m) for m in comparison["metrics"]]
    return [(v["variant"], m) for v in comparison["variants"] for m in v["metrics"]]


def _sentence(metric: dict, scope: str | None) -> str:
    where = f"variant {scope}: " if scope else ""
    return (
        f"{where}{metric['label']} {100 * metric['a']['rate']:.1f}% in run A vs {100 * metric['b']['rate']:.1f}% in "
        "run B "
        f"({100 * metric['difference']:+.1f} pp; {metric['test']}, Holm-adjusted p={metric['p_adjusted']:.3g})"
    )


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
