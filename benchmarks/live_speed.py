"""Live simulation speed, end to end: `twinsim simulate` with its default outputs (start to report) on the demo shop
and, with --oscar, on the real django-oscar shop (tests/support/oscar_shop), run from the commit before the speed
work (a git worktree of BASELINE_COMMIT made here, or --baseline PATH) and from this checkout, in the same run, one
after the other on the same machine. Writes benchmarks/results/live_speed.json.

For each shop and checkout: seconds from the command's start to its exit, steps taken (report.json), steps per
second; the traces, funnel and orders compared across the two (same seeds, same shop settings: they must be
identical); then, for this checkout, in process (benchmarks/_live_profile.py), where a step's time goes (navigation,
settle wait, page read, decision, screenshots) and the memory of a browser context (the probe hooks today's modules,
which the baseline's layout does not have). Each checkout runs with the Python of this
checkout's .venv (the dependencies are the same) and its own data directory, with the first --twins OPeRA personas
imported through its own CLI. Every run gets a fresh shop (demo: a new server; oscar: a new instance).

Run: .venv/bin/python benchmarks/live_speed.py [--twins 16] [--steps 8] [--seed 0] [--oscar] [--baseline PATH]
                                               [--concurrency N (this checkout's, default: its own default)]
                                               [--pairs N (before, after, before, after...: the median ratio)]

With --ray, instead: this checkout's live run on the demo shop in process and on a local Ray cluster started for
it (a head and a worker node on this machine, benchmarks/_live_ray.py): identical results, the overhead per twin.
Writes benchmarks/results/live_speed_ray.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, SHARED_OPERA, write_result
from _process_cpu import TreeSampler

from agent.simulation.comparable import comparable_run

BASELINE_COMMIT = "4cfd768"  # main before the live-speed work (issue 28)
PROFILE = Path(__file__).resolve().parent / "_live_profile.py"
RAY_COMPARISON = Path(__file__).resolve().parent / "_live_ray.py"


def baseline_checkout(given: str | None, scratch: Path) -> Path:
    if given:
        return Path(given).resolve()
    where = scratch / "baseline"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(where), BASELINE_COMMIT], cwd=REPO, check=True, capture_output=True
    )
    return where


def remove_worktree(where: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=REPO, capture_output=True)


def env_for(checkout: Path, data_dir: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(checkout), "TWINSIM_DATA_DIR": str(data_dir), "NO_COLOR": "1"}


def cli(checkout: Path, data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "service.cli.main", *args],
        cwd=checkout,
        env=env_for(checkout, data_dir),
        capture_output=True,
        text=True,
    )


def prepare_data(checkout: Path, data_dir: Path, twins: int) -> list[str]:
    rows = (SHARED_OPERA / "personas.jsonl").read_text().splitlines()[:twins]
    source = data_dir.parent / f"{data_dir.name}-personas.jsonl"
    source.write_text("\n".join(rows) + "\n")
    done = cli(checkout, data_dir, "personas", "import", str(source))
    if done.returncode:
        raise SystemExit(f"persona import failed in {checkout}: {done.stderr[-2000:]}")
    return [json.loads(row)["user_id"] for row in rows]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DemoShop:
    """A fresh `twinsim shop` (this checkout's) for one run."""

    name = "demo"

    def __enter__(self):
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service.cli.main", "shop", "--port", str(self.port)],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        self.url = f"http://127.0.0.1:{self.port}/"
        return self

    def orders(self) -> list:
        return []  # the demo shop takes no orders: the funnel's order stage is its confirmation page

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)


class OscarShop:
    """A fresh django-oscar instance for one run; its database says which orders were placed."""

    name = "oscar"

    def __enter__(self):
        from tests.support.oscar_shop import start

        self.instance = start("bench-live-speed", "control", log=lambda *_: None)
        self.url = self.instance.url
        return self

    def orders(self) -> list:
        from tests.support.oscar_shop.records import orders

        return sorted([o.guest_email, o.total, sorted(o.products), o.city] for o in orders(self.instance))

    def __exit__(self, *exc):
        from tests.support.oscar_shop import stop

        stop(self.instance.name)


def signature(report: dict) -> dict:
    """What must be identical for the same seeds (agent/simulation/comparable.py): each twin's steps (page, action,
    reason, memories), outcome and stages, and the funnel; not timings, the shop's port or memory ids."""
    return comparable_run(report)


def first_difference(a: object, b: object, path: str = "") -> str | None:
    """Where two signatures first differ (a JSON path and both values), or None."""
    if type(a) is not type(b):
        return f"{path}: {a!r:.120} != {b!r:.120}"
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r:.120} != {b!r:.120}"


def end_to_end(
    checkout: Path, data_dir: Path, shop_kind, ids: list[str], steps: int, seed: int, extra: list[str]
) -> dict:
    out = data_dir.parent / f"out-{shop_kind.name}-{checkout.name}"
    shutil.rmtree(out, ignore_errors=True)
    with shop_kind() as shop:
        command = ["simulate", "--url", shop.url, "--personas", ",".join(ids), "--max-steps", str(steps)]
        command += ["--seed", str(seed), "--out", str(out), *extra]
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli.main", *command],
            cwd=checkout,
            env=env_for(checkout, data_dir),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        with TreeSampler(process.pid) as cpu_used:
            _, stderr = process.communicate()
        seconds = time.perf_counter() - started
        cpu_by_kind = cpu_used.totals()
        cpu = sum(cpu_by_kind.values())
        orders = shop.orders()
    if process.returncode:
        raise SystemExit(f"simulate failed in {checkout}: {stderr[-3000:]}")
    report = json.loads((out / "report.json").read_text())
    taken = sum(len(t["steps"]) for t in report["traces"])
    return {
        "seconds": round(seconds, 2),
        "steps": taken,
        "steps_per_second": round(taken / seconds, 3),
        "cpu_seconds": round(cpu, 1),
        "cpu_ms_per_step": round(1000 * cpu / max(taken, 1), 1),
        "cpu_seconds_by_process": cpu_by_kind,
        "concurrency": report["config"]["concurrency"],
        "outcomes": report["funnel"]["outcomes"],
        "failures": report["funnel"]["failures"],
        "orders": len(orders),
        "_signature": signature(report),
        "_orders": orders,
    }


def profile(
    checkout: Path, data_dir: Path, shop_kind, ids: list[str], steps: int, seed: int, concurrency: int | None
) -> dict:
    with shop_kind() as shop:
        code = (
            f"import sys, runpy; sys.argv = sys.argv[1:]; sys.path.insert(0, {str(checkout)!r}); "
            "runpy.run_path(sys.argv[0], run_name='__main__')"
        )
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                code,
                str(PROFILE),
                str(data_dir),
                shop.url,
                ",".join(ids),
                str(steps),
                str(seed),
                str(concurrency or 0),
            ],
            cwd=checkout,
            env=env_for(checkout, data_dir),
            capture_output=True,
            text=True,
        )
    if done.returncode:
        raise SystemExit(f"profile failed in {checkout}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ray_comparison(twins: int, steps: int, seed: int) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="live-speed-ray-"))
    try:
        data = scratch / "data"
        ids = prepare_data(REPO, data, twins)
        with DemoShop() as shop:
            done = subprocess.run(
                [sys.executable, str(RAY_COMPARISON), str(data), shop.url, ",".join(ids), str(steps), str(seed)],
                cwd=REPO,
                env=env_for(REPO, data),
                capture_output=True,
                text=True,
            )
        if done.returncode:
            raise SystemExit(f"the Ray comparison failed: {done.stderr[-3000:]}")
        write_result(
            "live_speed_ray",
            {
                "max_steps": steps,
                "seed": seed,
                "load_average_at_end": os.getloadavg(),
                **json.loads(done.stdout.strip().splitlines()[-1]),
            },
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--twins", type=int, default=16)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--oscar", action="store_true", help="also on the real django-oscar shop")
    parser.add_argument(
        "--baseline", help=f"a checkout of the commit before (default: a git worktree of {BASELINE_COMMIT} made here)"
    )
    parser.add_argument("--concurrency", type=int, help="contexts at once for this checkout (default: its own)")
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="before and after run this many times, alternated; the speed-up is the median of the pairs' ratios "
        "(the machine's speed drifts between runs; a pair's two runs see about the same machine)",
    )
    parser.add_argument("--ray", action="store_true", help="only: in process vs a local two-node Ray cluster")
    args = parser.parse_args()
    if args.ray:
        return ray_comparison(args.twins, args.steps, args.seed)
    scratch = Path(tempfile.mkdtemp(prefix="live-speed-"))
    baseline = baseline_checkout(args.baseline, scratch)
    checkouts = {"before": baseline, "after": REPO}
    extra = {"before": [], "after": ["--concurrency", str(args.concurrency)] if args.concurrency else []}
    try:
        data = {label: scratch / f"data-{label}" for label in checkouts}
        ids = {label: prepare_data(checkouts[label], data[label], args.twins) for label in checkouts}
        shops = [DemoShop] + ([OscarShop] if args.oscar else [])
        results = {}
        for shop_kind in shops:
            pairs = [
                {
                    label: end_to_end(
                        checkouts[label], data[label], shop_kind, ids[label], args.steps, args.seed, extra[label]
                    )
                    for label in checkouts
                }
                for _ in range(args.pairs)
            ]
            runs = pairs[0]
            before, after = runs["before"]["_signature"], runs["after"]["_signature"]
            same = {
                "traces_and_funnel": before == after,
                "first_difference": first_difference(before, after),
                "orders": runs["before"]["_orders"] == runs["after"]["_orders"],
                "every_pair_as_the_first": all(
                    pair[label]["_signature"] == runs[label]["_signature"]
                    and pair[label]["_orders"] == runs[label]["_orders"]
                    for pair in pairs
                    for label in checkouts
                ),
            }
            ratios = [pair["after"]["steps_per_second"] / pair["before"]["steps_per_second"] for pair in pairs]
            for pair in pairs:
                for run in pair.values():
                    del run["_signature"], run["_orders"]
            entry = {
                "end_to_end": runs,
                "identical": same,
                "speedup": round(statistics.median(ratios), 2),
                "speedup_by_pair": [round(r, 2) for r in ratios],
                "seconds_by_pair": [[pair["before"]["seconds"], pair["after"]["seconds"]] for pair in pairs],
            }
            if not args.no_profile:  # this checkout only: the probe hooks today's modules, which the baseline lacks
                entry["profile"] = {
                    "after": profile(
                        REPO, data["after"], shop_kind, ids["after"], args.steps, args.seed, args.concurrency
                    )
                }
            results[shop_kind.name] = entry
            write_result(
                "live_speed",
                {  # after each shop: a run stopped later keeps what it measured
                    "twins": args.twins,
                    "max_steps": args.steps,
                    "seed": args.seed,
                    "pairs": args.pairs,
                    "baseline": BASELINE_COMMIT if not args.baseline else args.baseline,
                    "load_average_at_end": os.getloadavg(),
                    "shops": results,
                    "command": "twinsim simulate --url SHOP --personas <first N OPeRA personas> --max-steps S --seed 0 "
                    "--out DIR (default outputs: report.json, report.html, traces/, decision export)",
                },
            )
    finally:
        if not args.baseline:
            remove_worktree(baseline)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
