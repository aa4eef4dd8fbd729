"""One share of twins in both runs: its Wilson interval in each, the difference B - A with its bootstrap
interval, and the paired or unpaired test; and how a comparison describes whether its twins were paired.

Shared by the comparison of two simulations (simulation_comparison.py) and of two experiments
(experiment_comparison.py), so both measure a share the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.experiments.bootstrap import _Bootstrap
from agent.experiments.significance_tests import _independent_binary, _paired_binary

UNPAIRED_TEST = "two-proportion z-test, or Fisher's exact test when an expected count is below 5"
PAIRED_TEST = "McNemar on the pairs (exact binomial when fewer than 25 pairs disagree)"


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


def _pairing(paired: bool, why: str) -> dict:
    return {"paired": paired, "test": PAIRED_TEST if paired else UNPAIRED_TEST, "why": why}
