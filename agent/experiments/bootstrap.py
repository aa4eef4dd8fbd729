"""Seeded percentile bootstrap intervals of rates and rate differences (the _Bootstrap class).

Its own module because both the experiment statistics (statistics.py, variant_comparison.py) and the comparison of
two runs (agent/comparison) draw their intervals the same way, seeded from what is being estimated.
"""

from __future__ import annotations

import zlib

import numpy as np


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
