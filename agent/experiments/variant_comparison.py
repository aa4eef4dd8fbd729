"""One variant against the control: twins paired when they can be, each outcome tested with its rate difference,
interval and effect size, the action and click type distributions compared, and the same within segment buckets.

Split from statistics.py, which describes the variants and corrects every p-value of the experiment together;
this module holds the comparisons those p-values come from.
"""

from __future__ import annotations

from math import asin, sqrt

from agent.experiments.bootstrap import _Bootstrap
from agent.experiments.sample_outcomes import ACTION_TYPES, _click_types, _outcome_array
from agent.experiments.samples import Sample
from agent.experiments.significance_tests import _distribution_test, _independent_binary, _paired_binary


def _pairing(
    control: list[Sample], treated: list[Sample], control_name: str, variant: str
) -> tuple[bool, str, list[int]]:
    """Pairs twins by (persona_id, instance); returns (paired, why, index into `treated` for each control sample)."""
    keys_c = [(s.persona_id, s.instance) for s in control]
    keys_t = [(s.persona_id, s.instance) for s in treated]
    for name, keys in ((control_name, keys_c), (variant, keys_t)):
        if len(set(keys)) != len(keys):
            return False, f"some (persona_id, instance) appears more than once in {name!r}: independent samples", []
    if set(keys_c) != set(keys_t):
        only = len(set(keys_c) ^ set(keys_t))
        return False, f"{only} (persona_id, instance) pairs appear in only one variant: independent samples", []
    position = {k: i for i, k in enumerate(keys_t)}
    return (
        True,
        "every (persona_id, instance) appears once in both variants: paired samples",
        [position[k] for k in keys_c],
    )


def _compare(
    control: list[Sample],
    treated: list[Sample],
    control_name: str,
    variant: str,
    outcomes: list[str],
    boot: _Bootstrap,
    scope: str,
    with_distributions: bool,
) -> dict:
    paired, why, order = _pairing(control, treated, control_name, variant)
    if paired:
        treated = [treated[i] for i in order]
    results = {}
    for outcome in outcomes:
        a, b = _outcome_array(control, outcome), _outcome_array(treated, outcome)
        result = _paired_binary(a, b) if paired else _independent_binary(a, b)
        low, high = boot.difference(a, b, paired, f"diff|{scope}|{control_name}|{variant}|{outcome}")
        result.update(
            {
                "outcome": outcome,
                "scope": scope,
                "variant": variant,
                "control": control_name,
                "rate_control": float(a.mean()),
                "rate_variant": float(b.mean()),
                "difference": float(b.mean() - a.mean()),
                "difference_ci_low": low,
                "difference_ci_high": high,
                "cohens_h": _cohens_h(float(a.mean()), float(b.mean())),
            }
        )
        results[outcome] = result
    comparison = {
        "variant": variant,
        "control": control_name,
        "scope": scope,
        "paired": paired,
        "pairing": why,
        "n_control": len(control),
        "n_variant": len(treated),
        "outcomes": results,
    }
    if with_distributions:
        comparison["distributions"] = {
            "action_type": _distribution_test(
                [s.action_type for s in control],
                [s.action_type for s in treated],
                ACTION_TYPES,
                paired,
                "action_type",
                scope,
                control_name,
                variant,
            ),
            "click_type": _distribution_test(
                _click_types(control), _click_types(treated), (), paired, "click_type", scope, control_name, variant
            ),
        }
    return comparison


def _segments(
    by_variant: dict[str, list[Sample]], variants: list[str], outcomes: list[str], boot: _Bootstrap, min_size: int
) -> tuple[list[dict], list[dict]]:
    dimensions = sorted({d for group in by_variant.values() for s in group for d in s.segments})
    done, skipped = [], []
    for dimension in dimensions:
        buckets = sorted(
            {s.segments[dimension] for group in by_variant.values() for s in group if dimension in s.segments}
        )
        for bucket in buckets:
            subset = {v: [s for s in by_variant[v] if s.segments.get(dimension) == bucket] for v in variants}
            sizes = {v: len(g) for v, g in subset.items()}
            small = [v for v, n in sizes.items() if n < min_size]
            if small:
                skipped.append(
                    {
                        "dimension": dimension,
                        "bucket": bucket,
                        "sizes": sizes,
                        "reason": f"fewer than {min_size} samples in {', '.join(map(repr, small))}",
                    }
                )
                continue
            scope = f"{dimension}={bucket}"
            done.append(
                {
                    "dimension": dimension,
                    "bucket": bucket,
                    "sizes": sizes,
                    "rates": {v: {o: float(_outcome_array(g, o).mean()) for o in outcomes} for v, g in subset.items()},
                    "comparisons": [
                        _compare(
                            subset[variants[0]],
                            subset[v],
                            variants[0],
                            v,
                            outcomes,
                            boot,
                            scope,
                            with_distributions=False,
                        )
                        for v in variants[1:]
                    ],
                }
            )
    return done, skipped


def _tests_of(comparison: dict) -> list[dict]:
    return list(comparison["outcomes"].values()) + list((comparison.get("distributions") or {}).values())


def _cohens_h(p_control: float, p_variant: float) -> float:
    """Cohen's h: the difference of arcsine-transformed proportions; 0.2 small, 0.5 medium, 0.8 large."""
    return 2 * asin(sqrt(p_variant)) - 2 * asin(sqrt(p_control))
