"""Schemathesis with every check on every operation of the API, against a real uvicorn process on loopback with a real
store and one OPeRA persona (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) to aim at. Writes
benchmarks/results/api_fuzz.json (api_fuzz_<operation>.json for one operation): cases generated per run, failures by
kind and operation, server errors, network errors (a request schemathesis gave up on after its 10 s read timeout),
and the machine's load average sampled through the run.

The suite's tests/test_fuzz_api.py runs a few derandomised examples per operation in CI; this is the bounded long run
(at least 500 cases per operation by default), as the command line a user of schemathesis would type.

Settings in benchmarks/api_fuzz.toml: no cache (a run learns nothing from an earlier run against another server),
and a documented 422 accepted for schema-valid data on POST /simulations, /experiments and /predict only, whose
validity depends on what JSON Schema cannot state (a start page or page url that answers on an allowed host, a
screenshot that is a real image within the caps); every other check applies to them unchanged.

Run: .venv/bin/python benchmarks/api_fuzz.py [--max-examples 500] [--seed 0] [--workers 1]
     [--operation "POST /predict"] [--phases fuzzing]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import httpx
from _common import SHARED_OPERA, write_result

from tests.support.service_process import ServiceProcess


def one_persona() -> dict:
    csv.field_size_limit(10**9)
    with open(SHARED_OPERA / "users_sample.csv", newline="") as handle:
        return next(csv.DictReader(handle))


CONFIG = Path(__file__).with_name("api_fuzz.toml")


class LoadSampler:
    """The 1-minute load average every `every_s` seconds while the run lasts: a run of an hour is not described by
    the load at its two ends."""

    def __init__(self, every_s: float = 15.0) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(every_s,), daemon=True)

    def _sample(self, every_s: float) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(every_s):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> dict:
        values = self.samples or [os.getloadavg()[0]]
        return {
            "mean": round(sum(values) / len(values), 2),
            "min": round(min(values), 2),
            "max": round(max(values), 2),
            "samples": len(values),
        }


def result_name(operations: list[str]) -> str:
    """api_fuzz for the whole API; api_fuzz_post_personas_persona_id_interview for one operation."""
    if not operations:
        return "api_fuzz"
    return "api_fuzz_" + "_".join(re.sub(r"[^a-z0-9]+", "_", op.lower()).strip("_") for op in operations)


def run_schemathesis(url: str, report: Path, args: argparse.Namespace) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "run",
        f"{url}/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(args.max_examples),
        "--seed",
        str(args.seed),
        "--workers",
        str(args.workers),
        "--report",
        "json",
        "--report-json-path",
        str(report),
        "--continue-on-failure",
        "--output-truncate",
        "true",
    ]
    for operation in args.operation:  # "POST /predict": one operation, for a quick look at one finding
        command += ["--include-name", operation]
    if args.phases:
        command += ["--phases", args.phases]
    return subprocess.run(command, capture_output=True, text=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-examples", type=int, default=500, help="fuzzing examples per operation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--operation", action="append", default=[], help='only this one, e.g. "POST /predict"')
    parser.add_argument("--phases", help="only these phases, e.g. fuzzing (default: all)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with (
        LoadSampler() as load,
        tempfile.TemporaryDirectory() as data_dir,
        ServiceProcess({"TWINSIM_DATA_DIR": data_dir}, startup_timeout_s=600) as service,
    ):
        persona = httpx.post(f"{service.url}/personas", json=one_persona(), timeout=120)
        persona.raise_for_status()
        report = Path(data_dir) / "schemathesis.json"
        finished = run_schemathesis(service.url, report, args)
        server_log = service.output()
        print(finished.stdout)
        if not report.exists():
            raise SystemExit(f"schemathesis wrote no report (exit {finished.returncode}):\n{finished.stderr[-2000:]}")
        run = json.loads(report.read_text())
    tracebacks = server_log.count("Traceback (most recent call last)")
    failures = run.get("failures", [])
    options = "".join(f' --operation "{op}"' for op in args.operation) + (
        f" --phases {args.phases}" if args.phases else ""
    )
    write_result(
        result_name(args.operation),
        {
            "command": f"benchmarks/api_fuzz.py --max-examples {args.max_examples} --seed {args.seed} "
            f"--workers {args.workers}{options}",
            "tool": f"schemathesis {run.get('schemathesis_version')} run --checks all (every check), "
            f"{'phases ' + args.phases if args.phases else 'all phases'}",
            "target": "uvicorn service.api.main:app on 127.0.0.1, embedded Chroma, one OPeRA persona stored",
            "operations": run.get("operations"),
            "phases": {name: phase.get("status") for name, phase in run.get("phases", {}).items()},
            "test_cases": run.get("test_cases"),
            "failures": failures,
            "errors": run.get("errors", []),
            "server_errors_5xx": sum(f.get("count", 0) for f in failures if f.get("type") == "ServerError"),
            "conformance_failures": sum(f.get("count", 0) for f in failures if f.get("type") != "ServerError"),
            "network_errors": sum(
                e.get("count", 0) for e in run.get("errors", []) if e.get("title") == "Network Error"
            ),
            "server_tracebacks_logged": tracebacks,
            "running_time_s": round(run.get("running_time", 0.0), 1),
            "exit_code": finished.returncode,
            "stop_reason": run.get("stop_reason"),
            "load_average_1m_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
            "load_average_1m_during": load.summary(),
            "summary_tail": finished.stdout[-4000:],
        },
    )
    if failures or run.get("errors") or tracebacks:
        raise SystemExit(
            f"schemathesis found {len(failures)} kinds of failure, {len(run.get('errors', []))} errors, "
            f"{tracebacks} server tracebacks (see benchmarks/results/api_fuzz.json)"
        )


if __name__ == "__main__":
    main()
