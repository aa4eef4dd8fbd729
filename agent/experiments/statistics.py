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

import gc
import zlib
from collections import Counter
from collections.abc import Sequence
from math import asin, isfinite, sqrt
from typing import Any

import numpy as np

from agent.experiments.samples import Sample

ACTION_TYPES = ("click", "input", "terminate")
EXACT_MCNEMAR_BELOW = 25  # discordant pairs; below this the chi-square approximation of McNemar is poor
MIN_EXPECTED_COUNT = 5  # the usual rule for when a 2x2 table needs Fisher's exact test
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


def _multipletests(p_values: list[float], **options: Any) -> Any:  # statsmodels' tuple (it ships no types)
    """statsmodels' multipletests. Its Holm branch runs a full `gc.collect()` (0.3 s in a server holding a store
    and a model, twice per analysis); objects frozen before it are skipped, so the collection costs nothing."""
    from statsmodels.stats.multitest import multipletests  # scipy and statsmodels load on the first analysis

    gc.freeze()
    try:
        return multipletests(p_values, **options)
    finally:
        gc.unfreeze()


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


def _outcome(sample: Sample, outcome: str) -> bool:
    if outcome == "purchase":
        return sample.purchase
    if outcome == "leave":
        return sample.leave
    return bool(sample.target_clicks.get(outcome.removeprefix("target:"), False))


def _outcome_array(group: list[Sample], outcome: str) -> np.ndarray:
    return np.array([_outcome(s, outcome) for s in group], dtype=float)


# -- description -----------------------------------------------------------------------------------------------


def _distribution(values: list[str], order: Sequence[str] = ()) -> dict:
    counts = Counter(values)
    keys = list(order) + sorted(k for k in counts if k not in order)
    total = len(values)
    return {
        "n": total,
        "counts": {k: counts.get(k, 0) for k in keys},
        "shares": {k: (counts.get(k, 0) / total if total else 0.0) for k in keys},
    }


def _click_types(group: list[Sample]) -> list[str]:
    return [s.click_type for s in group if s.action_type == "click" and s.click_type]


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


# -- comparisons -----------------------------------------------------------------------------------------------


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


def _paired_binary(a: np.ndarray, b: np.ndarray) -> dict:
    a_, b_ = a.astype(bool), b.astype(bool)
    both, control_only = int((a_ & b_).sum()), int((a_ & ~b_).sum())
    variant_only, neither = int((~a_ & b_).sum()), int((~a_ & ~b_).sum())
    discordant = control_only + variant_only
    exact = discordant < EXACT_MCNEMAR_BELOW
    from statsmodels.stats.contingency_tables import mcnemar

    result = mcnemar([[both, control_only], [variant_only, neither]], exact=exact, correction=True)
    shift = 0.5 if control_only == 0 or variant_only == 0 else 0.0
    return {
        "test": "McNemar exact (binomial)" if exact else "McNemar chi-square (continuity-corrected)",
        "statistic": _num(result.statistic),
        "p_value": float(result.pvalue),
        "table": {"both": both, "control_only": control_only, "variant_only": variant_only, "neither": neither},
        "odds_ratio": (variant_only + shift) / (control_only + shift),
        "odds_ratio_kind": "paired: variant-only / control-only discordant pairs"
        + (" (+0.5 for a zero count)" if shift else ""),
    }


def _independent_binary(a: np.ndarray, b: np.ndarray) -> dict:
    s_a, n_a, s_b, n_b = int(a.sum()), len(a), int(b.sum()), len(b)
    table = np.array([[s_a, n_a - s_a], [s_b, n_b - s_b]])
    from scipy import stats
    from scipy.stats.contingency import expected_freq
    from statsmodels.stats.proportion import proportions_ztest

    if expected_freq(table).min() < MIN_EXPECTED_COUNT:
        test, statistic, p = "Fisher exact", None, float(stats.fisher_exact(table).pvalue)
    else:
        z, p = proportions_ztest([s_b, s_a], [n_b, n_a])
        test, statistic, p = "two-proportion z-test", _num(z), float(p)
    shift = 0.5 if (table == 0).any() else 0.0  # Haldane-Anscombe, so a zero cell gives a finite ratio
    odds = ((s_b + shift) * (n_a - s_a + shift)) / ((n_b - s_b + shift) * (s_a + shift))
    return {
        "test": test,
        "statistic": statistic,
        "p_value": p,
        "table": {"control_yes": s_a, "control_no": n_a - s_a, "variant_yes": s_b, "variant_no": n_b - s_b},
        "odds_ratio": odds,
        "odds_ratio_kind": "odds in variant / odds in control"
        + (" (+0.5 in every cell for a zero count)" if shift else ""),
    }


def _distribution_test(
    control: list[str],
    treated: list[str],
    order: Sequence[str],
    paired: bool,
    name: str,
    scope: str,
    control_name: str,
    variant: str,
) -> dict:
    result: dict[str, Any] = {
        "distribution": name,
        "scope": scope,
        "variant": variant,
        "control": control_name,
        "test": "chi-square",
        "p_value": None,
        "statistic": None,
        "dof": None,
        "cramers_v": None,
    }
    c_counts, t_counts = Counter(control), Counter(treated)
    columns = [
        k for k in list(order) + sorted((set(c_counts) | set(t_counts)) - set(order)) if c_counts[k] + t_counts[k] > 0
    ]
    result["categories"] = columns
    result["table"] = [[c_counts[k] for k in columns], [t_counts[k] for k in columns]]
    if not control or not treated:
        missing = control_name if not control else variant
        return result | {"applicable": False, "reason": f"{missing!r} has no {name.replace('_', ' ')} observations"}
    if len(columns) < 2:
        return result | {
            "applicable": False,
            "reason": f"only one {name.replace('_', ' ')} observed ({columns[0]!r}) in both variants",
        }
    table = np.array(result["table"])
    from scipy import stats
    from scipy.stats.contingency import association

    chi2, p, dof, expected = stats.chi2_contingency(table)
    notes = []
    if expected.min() < MIN_EXPECTED_COUNT:
        notes.append(f"some expected counts are below {MIN_EXPECTED_COUNT}: the chi-square approximation is rough")
    if paired:
        notes.append(
            "the samples are paired but this test treats them as independent; when twins act alike in both "
            "variants (the usual case) that makes it conservative"
        )
    return result | {
        "applicable": True,
        "statistic": float(chi2),
        "p_value": float(p),
        "dof": int(dof),
        "cramers_v": float(association(table, method="cramer")),
        "notes": notes,
    }


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


# -- effect sizes and intervals --------------------------------------------------------------------------------


def _cohens_h(p_control: float, p_variant: float) -> float:
    """Cohen's h: the difference of arcsine-transformed proportions; 0.2 small, 0.5 medium, 0.8 large."""
    return 2 * asin(sqrt(p_variant)) - 2 * asin(sqrt(p_control))


def _num(value: float) -> float | None:
    value = float(value)
    return value if isfinite(value) else None


class _Bootstrap:
    """Percentile bootstrap intervals of rates and rate differences, each seeded from (seed, what it estimates).

    The outcomes are 0/1, so resampling n samples with replacement and counting the ones is exactly a
    Binomial(n, observed rate) draw, and resampling n twins' (control, variant) pairs is a Multinomial draw
    over the four cells of the paired table. Drawing those counts gives the same bootstrap distribution as
    scipy.stats.bootstrap (tests/test_experiment_statistics.py checks it) in O(n_resamples) instead of
    O(n * n_resamples), which keeps thousands of twins x targets x segment buckets quick.
    """

    def __init__(self, n_resamples: int, confidence: float, seed: int) -> None:
        self.n_resamples, self.seed = n_resamples, seed
        self.quantiles = [(1 - confidence) / 2, 1 - (1 - confidence) / 2]

    def _rng(self, key: str) -> np.random.Generator:
        return np.random.default_rng([self.seed, zlib.crc32(key.encode())])

    def _interval(self, draws: np.ndarray) -> tuple[float, float]:
        low, high = np.quantile(draws, self.quantiles)
        return float(low), float(high)

    def mean(self, values: np.ndarray, key: str) -> tuple[float, float]:
        n = len(values)
        if n < 2:
            return float(values.mean()), float(values.mean())
        return self._interval(self._rng(key).binomial(n, values.mean(), size=self.n_resamples) / n)

    def difference(self, control: np.ndarray, variant: np.ndarray, paired: bool, key: str) -> tuple[float, float]:
        """Interval of mean(variant) - mean(control); paired resamples twins, otherwise each variant on its own."""
        point = float(variant.mean() - control.mean())
        n_c, n_v = len(control), len(variant)
        if min(n_c, n_v) < 2:
            return point, point
        rng = self._rng(key)
        if paired:
            c, v = control.astype(bool), variant.astype(bool)
            cells = np.array([(c & v).sum(), (c & ~v).sum(), (~c & v).sum(), (~c & ~v).sum()]) / n_c
            counts = rng.multinomial(n_c, cells, size=self.n_resamples)
            return self._interval((counts[:, 2] - counts[:, 1]) / n_c)
        control_draws = rng.binomial(n_c, control.mean(), size=self.n_resamples) / n_c
        variant_draws = rng.binomial(n_v, variant.mean(), size=self.n_resamples) / n_v
        return self._interval(variant_draws - control_draws)
