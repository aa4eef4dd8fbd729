"""How long `twinsim personas import` of the 52 OPeRA personas takes, as a user runs it. Writes
benchmarks/results/import_speed.json (or --out NAME).

Each run is a new process of this checkout's CLI (`python -c "from service.cli.main import main; main()"`, what
the console script runs) importing personas.jsonl into a fresh data dir: model loading, embedding and Chroma
writes all counted. `--runs` times; wall times, median and worst, the store's memory count and the embedder the
store records. Target (issue "Speed where users wait"): <= 10 s. The 1-minute load average is recorded before
and after: the machine has 2 cores shared with other work.

Run: .venv/bin/python benchmarks/import_speed.py [--runs 3] [--out import_speed]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, SHARED_OPERA, write_result

CLI = [sys.executable, "-c", "from service.cli.main import main; main()"]
TARGET_S = 10.0


def one_import(personas: Path) -> dict:
    with tempfile.TemporaryDirectory() as data_dir:
        env = {**os.environ, "TWINSIM_DATA_DIR": data_dir, "HF_HUB_OFFLINE": "1"}
        started = time.perf_counter()
        done = subprocess.run(
            [*CLI, "personas", "import", str(personas)],
            cwd=REPO,
            env=env,
            capture_output=True,
            check=False,
            text=True,
            timeout=900,
        )
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"the import failed: {done.stderr[-2000:]}")
        return {"wall_s": round(elapsed, 2), **store_facts(Path(data_dir) / "chroma")}


def store_facts(chroma_path: Path) -> dict:
    """What the import left, read in a fresh process (the embedded store's lock is per process)."""
    code = (
        "import json, chromadb; from chromadb.config import Settings; "
        f"c = chromadb.PersistentClient(path={str(chroma_path)!r}, settings=Settings(anonymized_telemetry=False)); "
        "m = c.get_collection('twinsim_memories'); p = c.get_collection('twinsim_personas'); "
        "print(json.dumps({'personas': p.count(), 'memories': m.count(), "
        "'embedder_recorded': (m.metadata or {}).get('embedder')}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default="import_speed", help="result name (e.g. import_speed_before)")
    args = parser.parse_args()
    personas = SHARED_OPERA / "personas.jsonl"
    load_before = os.getloadavg()[0]
    runs = [one_import(personas) for _ in range(args.runs)]
    times = [run["wall_s"] for run in runs]
    write_result(
        args.out,
        {
            "file": os.path.relpath(personas, REPO.parent),
            "runs": runs,
            "median_s": round(statistics.median(times), 2),
            "max_s": max(times),
            "target_s": TARGET_S,
            "meets_target": statistics.median(times) <= TARGET_S,
            "load_average_1m_before": round(load_before, 2),
            "load_average_1m_after": round(os.getloadavg()[0], 2),
            "note": "each run a new process of this checkout's CLI into a fresh data dir; 2-core machine shared with "
            "other work",
        },
    )


if __name__ == "__main__":
    main()
