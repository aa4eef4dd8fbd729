"""Helpers shared by the benchmark scripts: where results go, percentiles, machine facts."""

from __future__ import annotations

import json
import os
import platform
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
sys.path.insert(0, str(REPO))

from agent.opera_data import opera_data_dir  # noqa: E402 - the repository is on the path from here

SHARED_OPERA = opera_data_dir()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def write_result(name: str, result: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    result = {
        "benchmark": name,
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        **result,
    }
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result, indent=2, sort_keys=True))
    return path


def holm_adjust(tests: list[dict], alpha: float) -> int:
    """Holm over every test of a run that has a p-value: each gains `p_holm` and `significant`; a test with nothing
    to test (no p-value) gets None and False. Returns how many tests the family holds."""
    from statsmodels.stats.multitest import multipletests

    testable = [t for t in tests if t["p_value"] is not None]
    if testable:
        reject, adjusted, _, _ = multipletests([t["p_value"] for t in testable], alpha=alpha, method="holm")
        for t, p_adj, rej in zip(testable, adjusted, reject, strict=True):
            t["p_holm"], t["significant"] = float(p_adj), bool(rej)
    for t in tests:
        t.setdefault("p_holm", None)
        t.setdefault("significant", False)
    return len(testable)


def stop_cleanly_on_sigterm() -> None:
    """SIGTERM (kill, a CI timeout) unwinds like Ctrl-C, so the model server a benchmark started is stopped by its
    `with` block rather than left running without its parent."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
