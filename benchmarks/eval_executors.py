"""`twinsim eval` in this process vs on Ray (TWINSIM_EXECUTOR=ray, a local Ray on this machine's cores), on the
real OPeRA timelines (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) with the embedded brain and memory recall
on: wall time, steps per second, and whether both give the same report. Writes
benchmarks/results/eval_executors.json.

On one machine Ray cannot beat the in-process run by much: the driver still recalls every step's memories
before the workers start, and the machine has the same cores either way. The figure is the overhead of going
through Ray, the price of spreading a large evaluation over a cluster.

Run: .venv/bin/python benchmarks/eval_executors.py
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from _common import SHARED_OPERA, write_result
from rich.console import Console
from timelines_eval import timelines_table

from service.cli.evaluation import run_eval_command


def run(table: Path, executor: str) -> tuple[dict, float]:
    os.environ["TWINSIM_EXECUTOR"] = executor
    started = time.perf_counter()
    report = run_eval_command(
        actions=table,
        users=SHARED_OPERA / "personas.jsonl",
        brain="embedded",
        model=None,
        ablate=frozenset(),
        sessions=None,
        limit=None,
        concurrency=4,
        out=None,
        html=None,
        checkpoint=None,
        console=Console(quiet=True),
    )
    return report, time.perf_counter() - started


def main() -> None:
    import ray

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TWINSIM_DATA_DIR"] = str(Path(tmp) / "data")
        table = timelines_table(Path(tmp) / "timelines_actions.jsonl")
        run(table, "inprocess")  # warm-up: personas embedded into the eval store, models loaded
        ray.init(include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
        run(table, "ray")  # warm-up: Ray workers started
        reports = {}
        for executor in ("inprocess", "ray"):
            report, wall = run(table, executor)
            steps = report["metrics"]["n"]
            reports[executor] = report
            results[executor] = {
                "steps": steps,
                "wall_s": round(wall, 2),
                "steps_per_s": round(steps / wall, 1),
                "load_average_1m": round(os.getloadavg()[0], 2),
            }
            print(executor, json.dumps(results[executor]))
        ray.shutdown()
    same = reports["ray"]["metrics"] == reports["inprocess"]["metrics"]
    write_result(
        "eval_executors",
        {
            "data": "shared/data/opera/timelines.jsonl (218 sessions), page-free, embedded brain, memory recall on",
            "ray": "local Ray started by this script on this machine (all its cores)",
            "same_metrics": same,
            "results": results,
        },
    )
    if not same:
        raise SystemExit("the Ray run's metrics differ from the in-process run's")


if __name__ == "__main__":
    main()
