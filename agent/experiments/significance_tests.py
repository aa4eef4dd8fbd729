"""The significance tests of two groups of twins: McNemar on paired 0/1 outcomes, the two-proportion z-test or
Fisher's exact test on independent ones, chi-square on category distributions, and the multiple-testing correction.

Kept apart from the analysis that calls them (statistics.py, variant_comparison.py) and reused by the comparison
of two runs (agent/comparison): the textbook tests in one place, each checkable by hand.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Sequence
from math import isfinite
from typing import Any

import numpy as np

EXACT_MCNEMAR_BELOW = 25  # discordant pairs; below this the chi-square approximation of McNemar is poor
MIN_EXPECTED_COUNT = 5  # the usual rule for when a 2x2 table needs Fisher's exact test


def _multipletests(p_values: list[float], **options: Any) -> Any:  # statsmodels' tuple (it ships no types)
    """statsmodels' multipletests. Its Holm branch runs a full `gc.collect()` (0.3 s in a server holding a store
    and a model, twice per analysis); objects frozen before it are skipped, so the collection costs nothing."""
    from statsmodels.stats.multitest import multipletests  # scipy and statsmodels load on the first analysis

    gc.freeze()
    try:
        return multipletests(p_values, **options)
    finally:
        gc.unfreeze()


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


def _num(value: float) -> float | None:
    value = float(value)
    return value if isfinite(value) else None
