"""How long the CLI makes a user wait for commands that need no model. Writes benchmarks/results/cli_speed.json.

Each command runs as a new process of this checkout's CLI (`python -c "from service.cli.main import main; main()"`:
what the `twinsim` console script runs, which would run whichever checkout the virtualenv installed) against a
temporary data dir holding one stored persona (personas/examples/sam-chen.json), `--runs` times; wall times, median
and worst.
Target (issue 19): <= 1 s for a command that needs no model. The 1-minute load average is recorded: the machine
has 2 cores shared with other work.

Run: .venv/bin/python benchmarks/cli_speed.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from _common import REPO, write_result

TWINSIM = [sys.executable, "-c", "from service.cli.main import main; main()"]
COMMANDS = {
    "--help": ["--help"],
    "--version": ["--version"],
    "personas list": ["personas", "list"],
    "experiment list": ["experiment", "list"],
}
TARGET_S = 1.0


def timed(args: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [*TWINSIM, *args], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=300
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"twinsim {' '.join(args)} failed: {done.stderr[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        env = {**os.environ, "TWINSIM_DATA_DIR": data_dir}
        subprocess.run(
            [*TWINSIM, "personas", "import", str(REPO / "personas/examples/sam-chen.json")],
            cwd=REPO,
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
        results = {}
        for name, command in COMMANDS.items():
            times = [timed(command, env) for _ in range(args.runs)]
            results[name] = {
                "median_s": round(statistics.median(times), 3),
                "max_s": round(max(times), 3),
                "runs": args.runs,
                "meets_target": statistics.median(times) <= TARGET_S,
            }
    write_result(
        "cli_speed",
        {
            "commands": results,
            "target_s": TARGET_S,
            "load_average_1m": os.getloadavg()[0],
            "note": "each run a new process; 2-core machine shared with other work",
        },
    )


if __name__ == "__main__":
    main()
