"""The comparison of two simulations (report.json): the twins paired by persona id when the same personas ran,
each funnel stage reached, each way a run ended and the task reached, as shares of twins in both runs.

One kind of run per module: the entry point and the Holm correction over every share are in run_comparison.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.comparison.comparison_error import ComparisonError
from agent.comparison.run_settings import seed_note, settings_diff, simulation_settings
from agent.comparison.share_metric import _metric, _pairing
from agent.experiments.bootstrap import _Bootstrap

OUTCOME_ORDER = ("left", "purchased", "task_reached", "max_steps", "error")  # agent/simulation/trace.py Outcome


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
    notes += seed_note(a["config"].get("seed"), b["config"].get("seed"))
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


def _union(first: Sequence[str], second: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def _side_by_side(a: dict, b: dict) -> dict:
    return {key: {"a": a.get(key, 0), "b": b.get(key, 0)} for key in _union(list(a), list(b))}
