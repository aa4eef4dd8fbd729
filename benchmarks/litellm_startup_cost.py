"""What importing litellm at every service start-up costs: time to the first answered /healthz, and memory.

The service imports litellm in a thread at start-up, whatever its settings, so that no request pays for the import
(agent/llm/offline_litellm.py). This measures that choice against a start-up without it: alternating rounds of the
real service process (`uvicorn service.api.main:app`, embedded Chroma, an empty data dir) with the real litellm, and
with a `litellm` on the path whose import does nothing (what a service that never imports litellm costs; the same
code otherwise). Per round: seconds to the first 200 from /healthz, the process's RSS then, seconds until a brain=llm
interview no longer says the LLM client is still loading (the import done), and the RSS after it.

Run: .venv/bin/python benchmarks/litellm_startup_cost.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from _common import write_result

from tests.support.service_process import ServiceProcess

QUESTION = {"question": "Why?", "brain": "llm", "model": "openai/gpt-4o"}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def one_start(with_litellm: bool, stub_dir: Path) -> dict:
    with tempfile.TemporaryDirectory() as data_dir:
        env = {"TWINSIM_DATA_DIR": data_dir}
        if not with_litellm:
            env["PYTHONPATH"] = os.pathsep.join(p for p in (str(stub_dir), os.environ.get("PYTHONPATH")) if p)
        started = time.perf_counter()
        with ServiceProcess(env, startup_timeout_s=600) as service:
            assert service.pid is not None and service.ready_after_s is not None
            ready_rss = rss_mb(service.pid)
            httpx.post(f"{service.url}/personas", json={"id": "p1"}, timeout=120).raise_for_status()
            while with_litellm:  # the stand-in is imported at once (and has nothing to call)
                answer = httpx.post(f"{service.url}/personas/p1/interview", json=QUESTION, timeout=120).json()
                if "still loading" not in (answer.get("fallback_reason") or ""):
                    break
                time.sleep(0.5)
            loaded_after = time.perf_counter() - started
            return {
                "litellm": "real" if with_litellm else "empty stand-in",
                "healthz_after_s": round(service.ready_after_s, 2),
                "rss_at_healthz_mb": round(ready_rss, 1),
                "llm_client_ready_after_s": round(loaded_after, 2),
                "rss_after_import_mb": round(rss_mb(service.pid), 1),
                "load_average_1m": round(os.getloadavg()[0], 2),
            }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3, help="start-ups of each kind, alternating")
    args = parser.parse_args()
    rounds: list[dict] = []
    with tempfile.TemporaryDirectory() as stub:
        (Path(stub) / "litellm").mkdir()
        (Path(stub) / "litellm" / "__init__.py").write_text('"""An import that costs nothing."""\n')
        for _ in range(args.rounds):
            for with_litellm in (True, False):
                rounds.append(one_start(with_litellm, Path(stub)))
                print(rounds[-1], flush=True)

    def median(kind: str, key: str) -> float:
        return round(statistics.median(r[key] for r in rounds if r["litellm"] == kind), 2)

    keys = ("healthz_after_s", "rss_at_healthz_mb", "llm_client_ready_after_s", "rss_after_import_mb")
    medians = {kind: {key: median(kind, key) for key in keys} for kind in ("real", "empty stand-in")}
    write_result(
        "litellm_startup_cost",
        {
            "command": f"benchmarks/litellm_startup_cost.py --rounds {args.rounds}",
            "medians": medians,
            "cost_of_importing_at_startup": {
                key: round(medians["real"][key] - medians["empty stand-in"][key], 2) for key in keys
            },
            "rounds": rounds,
        },
    )


if __name__ == "__main__":
    main()
