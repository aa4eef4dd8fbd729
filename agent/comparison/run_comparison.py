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

from agent.comparison.comparison_error import ComparisonError
from agent.comparison.experiment_comparison import _compare_experiments
from agent.comparison.share_metric import PAIRED_TEST, UNPAIRED_TEST
from agent.comparison.simulation_comparison import _compare_simulations
from agent.experiments.bootstrap import _Bootstrap
from agent.experiments.samples import Sample
from agent.experiments.significance_tests import _multipletests

ALPHA = 0.05
N_BOOTSTRAP = 2000


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
