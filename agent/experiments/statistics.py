"""The statistics of an A/B experiment on twins: rates with bootstrap intervals, each variant tested against the
control, within segments too, and every p-value of the experiment corrected together.

The tests are the textbook ones from scipy and statsmodels, picked by the shape of the data so that a reader
can check any figure by hand (docs/experiments.md, "Statistics", says which test is used when):
- paired twins (the same persona and instance in every variant): McNemar, exact when few pairs disagree;
- otherwise a two-proportion z-test, or Fisher's exact test when an expected cell count is below 5;
- action-type and click-type distributions: chi-square on the contingency table, with Cramér's V.
Bootstrap draws are seeded from (seed, what is being estimated), so a figure does not change when
another variant, target or segment is added, and the same seed gives the same report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from agent.experiments.bootstrap import _Bootstrap
from agent.experiments.sample_outcomes import ACTION_TYPES, _click_types, _distribution, _outcome_array
from agent.experiments.samples import Sample
from agent.experiments.significance_tests import EXACT_MCNEMAR_BELOW, MIN_EXPECTED_COUNT, _multipletests
from agent.experiments.variant_comparison import _compare, _segments, _tests_of

MIN_SEGMENT_SIZE = 10  # per variant; smaller buckets are skipped rather than tested


class ExperimentInputError(ValueError):
    """The samples or settings cannot be analysed; the message says why."""


def analyse(
    samples: list[Sample],
    variants: list[str],
    *,
    targets: Sequence[str] = (),
    alpha: float = 0.05,
    n_bootstrap: int = 2000,
    seed: int = 0,
    top_elements: int = 10,
    correction: str = "holm",
    min_segment_size: int = MIN_SEGMENT_SIZE,
) -> dict:
    """Describe every variant, compare each with the first (the control), overall and within segment buckets.

    Returns a JSON-serialisable dict; every test result carries `p_value`, `p_adjusted` (across all tests of
    the experiment, `correction` method) and `significant` (adjusted p below `alpha`).
    """
    variants = list(variants)
    targets = list(dict.fromkeys(targets))
    by_variant = _validate(samples, variants, targets, alpha, n_bootstrap, top_elements, correction)
    outcomes = ["purchase", "leave"] + [f"target:{t}" for t in targets]
    boot = _Bootstrap(n_bootstrap, 1 - alpha, seed)
    control = variants[0]

    described = {v: _describe(v, by_variant[v], outcomes, boot, top_elements) for v in variants}
    comparisons = [
        _compare(by_variant[control], by_variant[v], control, v, outcomes, boot, scope="all", with_distributions=True)
        for v in variants[1:]
    ]
    segments, skipped = _segments(by_variant, variants, outcomes, boot, min_segment_size)

    tests = [r for c in comparisons for r in _tests_of(c)] + [
        r for s in segments for c in s["comparisons"] for r in _tests_of(c)
    ]
    testable = [r for r in tests if r.get("p_value") is not None]
    if testable:
        reject, adjusted, _, _ = _multipletests([r["p_value"] for r in testable], alpha=alpha, method=correction)
        for result, p_adj, rej in zip(testable, adjusted, reject, strict=True):
            result["p_adjusted"], result["significant"] = float(p_adj), bool(rej)
    for result in tests:
        result.setdefault("p_adjusted", None)
        result.setdefault("significant", False)

    return {
        "control": control,
        "variants": described,
        "comparisons": comparisons,
        "segments": segments,
        "segments_skipped": skipped,
        "correction": {
            "method": correction,
            "alpha": alpha,
            "n_tests": len(testable),
            "family": "every p-value of the experiment: overall and segment comparisons, binary "
            "outcomes and distributions",
        },
        "settings": {
            "alpha": alpha,
            "confidence_level": 1 - alpha,
            "n_bootstrap": n_bootstrap,
            "seed": seed,
            "targets": targets,
            "top_elements": top_elements,
            "min_segment_size": min_segment_size,
            "exact_mcnemar_below": EXACT_MCNEMAR_BELOW,
            "min_expected_count": MIN_EXPECTED_COUNT,
        },
    }


# -- input -----------------------------------------------------------------------------------------------------


def _validate(
    samples: list[Sample],
    variants: list[str],
    targets: list[str],
    alpha: float,
    n_bootstrap: int,
    top_elements: int,
    correction: str,
) -> dict[str, list[Sample]]:
    if len(variants) < 2:
        raise ExperimentInputError(
            f"an experiment needs at least two variants (a control and one other), got {len(variants)}"
        )
    if len(set(variants)) != len(variants):
        raise ExperimentInputError(f"variant names must be unique, got {variants}")
    if not all(isinstance(t, str) and t for t in targets):
        raise ExperimentInputError("target element names must be non-empty strings")
    if not 0 < alpha < 1:
        raise ExperimentInputError(f"alpha must be between 0 and 1, got {alpha}")
    if n_bootstrap < 1:
        raise ExperimentInputError(f"n_bootstrap must be at least 1, got {n_bootstrap}")
    if top_elements < 0:
        raise ExperimentInputError(f"top_elements must not be negative, got {top_elements}")
    try:
        _multipletests([0.5], method=correction)
    except ValueError:
        raise ExperimentInputError(
            f"unknown multiple-testing correction {correction!r} (a statsmodels multipletests "
            "method, e.g. 'holm', 'fdr_bh', 'bonferroni')"
        ) from None
    by_variant: dict[str, list[Sample]] = {v: [] for v in variants}
    for sample in samples:
        if sample.variant not in by_variant:
            raise ExperimentInputError(
                f"a sample belongs to unknown variant {sample.variant!r}; the variants are {variants}"
            )
        by_variant[sample.variant].append(sample)
    empty = [v for v, group in by_variant.items() if not group]
    if empty:
        raise ExperimentInputError(f"variant(s) {empty} have no samples")
    return by_variant


# -- description -----------------------------------------------------------------------------------------------


def _describe(variant: str, group: list[Sample], outcomes: list[str], boot: _Bootstrap, top_elements: int) -> dict:
    n = len(group)
    elements = Counter(s.element for s in group if s.element)
    top = sorted(elements.items(), key=lambda kv: (-kv[1], kv[0]))[:top_elements]
    rates = {}
    for outcome in outcomes:
        values = _outcome_array(group, outcome)
        low, high = boot.mean(values, f"rate|{variant}|{outcome}")
        rates[outcome] = {
            "successes": int(values.sum()),
            "n": n,
            "rate": float(values.mean()),
            "ci_low": low,
            "ci_high": high,
        }
    return {
        "n": n,
        "n_personas": len({s.persona_id for s in group}),
        "action_type": _distribution([s.action_type for s in group], ACTION_TYPES),
        "click_type": _distribution(_click_types(group)),
        "top_elements": [{"element": e, "count": c, "share": c / n} for e, c in top],
        "rates": rates,
        "mean_steps": float(np.mean([s.steps for s in group])),
    }
