"""Throughput of POST /predict (embedded brain) with a lean load generator, wrk, on the same 2 cores.

A real uvicorn process (or N workers) on 127.0.0.1 serves 10 real OPeRA personas (Wang et al. 2025, arXiv
2506.05606, CC-BY-4.0) on the three ~100 KB sample pages with a short history. wrk (C, one thread, keep-alive
connections) sends the requests round-robin for --seconds; every status is counted by wrk, every prediction by
the service's own Prometheus counter, and the CPU seconds of wrk and of the service are read from /proc, so
the figure says how much of the machine the load generator took. Writes benchmarks/results/throughput.json.

Store: embedded Chroma for one worker; `--workers N` (N > 1) runs a Chroma server, as deployment does.
Needs wrk (Debian: `apt-get install wrk`).
Run: .venv/bin/python benchmarks/throughput.py [--seconds 30] [--connections 16] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from contextlib import ExitStack
from pathlib import Path

import httpx
from _common import write_result
from load_test import HISTORY, PAGES, persona_records, served_predictions

from agent.sample_pages import sample_page
from tests.support.chroma_server import ChromaServer
from tests.support.service_process import ServiceProcess

WRK_SCRIPT = r"""
local bodies, requests, i = {}, {}, 0
init = function(args)
  for line in io.lines(args[1]) do
    bodies[#bodies + 1] = line
  end
  for n, body in ipairs(bodies) do
    requests[n] = wrk.format("POST", "/predict", {["Content-Type"] = "application/json"}, body)
  end
end
request = function()
  i = i % #requests + 1
  return requests[i]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, "read": %d, "write": %d, "status": %d, '
    .. '"timeout": %d, "p50_us": %d, "p90_us": %d, "p95_us": %d, "p99_us": %d, "max_us": %d, "mean_us": %.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(95), latency:percentile(99),
    latency.max, latency.mean))
end
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and of its children that it has waited for (uvicorn's workers)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def service_cpu_seconds(pid: int) -> float:
    """The service process and its live children (the workers of `--workers N`)."""
    total = cpu_seconds(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for child in children.read_text().split() if children.exists() else []:
        total += cpu_seconds(int(child))
    return total


def run_wrk(url: str, bodies_path: Path, script_path: Path, seconds: int, connections: int) -> tuple[dict, float]:
    command = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{seconds}s",
        "--timeout",
        "10s",
        "-s",
        str(script_path),
        url,
        "--",
        str(bodies_path),
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    output = proc.stdout.read()
    match = re.search(r"^WRK_JSON (.*)$", output, re.MULTILINE)
    if proc.returncode != 0 or not match:
        raise SystemExit(f"wrk failed (exit {proc.returncode}):\n{output}")
    return json.loads(match.group(1)), usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--personas", type=int, default=10)
    parser.add_argument("--name", default="throughput", help="result file name (benchmarks/results/NAME.json)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    records = persona_records(args.personas)
    pages = [(sample_page(name), url) for name, url in PAGES]
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        env = {"TWINSIM_DATA_DIR": tmp}
        store = "embedded Chroma"
        if args.workers > 1:
            chroma = stack.enter_context(ChromaServer(Path(tmp) / "chroma-server"))
            env["TWINSIM_CHROMA_URL"], store = chroma.url, "Chroma server (chroma run) on 127.0.0.1"
        service = stack.enter_context(
            ServiceProcess(env, args=("--workers", str(args.workers)) if args.workers > 1 else ())
        )
        ids = [
            httpx.post(f"{service.url}/personas", json=r, timeout=300).raise_for_status().json()["id"] for r in records
        ]
        bodies_path, script_path = Path(tmp) / "bodies.jsonl", Path(tmp) / "predict.lua"
        bodies_path.write_text(
            "".join(
                json.dumps({"persona_id": pid, "page": {"simplified_html": html, "url": url}, "history": HISTORY})
                + "\n"
                for pid in ids
                for html, url in pages
            )
        )
        script_path.write_text(WRK_SCRIPT)
        run_wrk(service.url, bodies_path, script_path, 5, args.connections)  # warm up: every page and persona seen
        load_before = os.getloadavg()
        counted_before, cpu_before = served_predictions(service.url), service_cpu_seconds(service._proc.pid)
        wrk, wrk_cpu_s = run_wrk(service.url, bodies_path, script_path, args.seconds, args.connections)
        service_cpu_s = service_cpu_seconds(service._proc.pid) - cpu_before
        counted = served_predictions(service.url) - counted_before
        load_after = os.getloadavg()
    wall_s = wrk["duration_us"] / 1e6
    errors = {k: wrk[k] for k in ("connect", "read", "write", "status", "timeout")}
    write_result(
        args.name,
        {
            "endpoint": "POST /predict, brain=embedded, ~100 KB simplified pages, 2-step history",
            "service": f"uvicorn on 127.0.0.1, {args.workers} worker process(es), {store}",
            "load_generator": (
                f"wrk 1 thread, {args.connections} keep-alive connections, {args.seconds} s, same machine"
            ),
            "personas": len(ids),
            "pages": [n for n, _ in PAGES],
            "requests": wrk["requests"],
            "wall_s": round(wall_s, 2),
            "throughput_rps": round(wrk["requests"] / wall_s, 1),
            "errors": errors,
            "non_2xx": wrk["status"],
            "predictions_counted_by_metrics": counted,
            "latency_ms": {q: round(wrk[f"{q}_us"] / 1000, 2) for q in ("p50", "p90", "p95", "p99", "max")},
            "cpu_share_of_2_cores": {
                "load_generator": round(wrk_cpu_s / wall_s / 2, 3),
                "service": round(service_cpu_s / wall_s / 2, 3),
            },
            "service_cpu_ms_per_request": round(service_cpu_s * 1000 / max(1, wrk["requests"]), 2),
            "load_average_1m_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
            "target": {"throughput_rps": 150, "errors": 0},
        },
    )
    if any(errors.values()):
        raise SystemExit(f"throughput run had errors: {errors}")


if __name__ == "__main__":
    main()
