"""`twinsim simulate` from start to report, in a process of its own: it starts Playwright's driver and Chromium
while it still loads the twins' graph and store (agent/browser/kept_browser.py), its twins take the steps an
in-process run in a browser of its own takes for the same seeds, and it leaves no browser or driver behind."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from agent.simulation import SimulationConfig, run_simulation
from agent.simulation.comparable import comparable_run
from tests.conftest import REPO
from tests.support.sample_twins import services_with_opera_personas

pytestmark = pytest.mark.integration


def processes_with(marker: str) -> list[int]:
    """Processes whose environment holds `marker` (a run's children inherit it: the driver, every Chromium)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
    return found


def twinsim_env(data: Path, marker: str) -> dict[str, str]:
    return {**os.environ, "TWINSIM_DATA_DIR": str(data), "NO_COLOR": "1", "TWINSIM_TEST_RUN": marker}


def twinsim(data: Path, marker: str, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "service.cli.main", *args]
    return subprocess.run(command, cwd=REPO, env=twinsim_env(data, marker), capture_output=True, text=True, timeout=600)


def import_personas(opera_dir: Path, data: Path, marker: str, count: int) -> list[str]:
    rows = (opera_dir / "personas.jsonl").read_text().splitlines(keepends=True)[:count]
    source = data.parent / f"{data.name}-personas.jsonl"
    source.write_text("".join(rows))
    assert twinsim(data, marker, "personas", "import", str(source)).returncode == 0
    return [json.loads(row)["user_id"] for row in rows]


def none_left(marker: str) -> bool:
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    return processes_with(marker) == []


def test_a_cli_run_takes_the_in_process_steps_and_leaves_no_browser_running(tmp_path, opera_dir, shop_url):
    services, personas = services_with_opera_personas(tmp_path / "here", opera_dir, 3)
    ids = [p.id for p in personas]
    config = SimulationConfig(url=shop_url + "/", persona_ids=ids, max_steps=4, seed=3)
    here = asyncio.run(run_simulation(config, personas, services.graph))

    marker = f"cli-run-{uuid.uuid4()}"
    assert import_personas(opera_dir, tmp_path / "cli", marker, 3) == ids
    out = tmp_path / "out"
    done = twinsim(
        tmp_path / "cli", marker, "simulate", "--url", config.url, "--personas", ",".join(ids), "--max-steps", "4",
        "--seed", "3", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    report = json.loads((out / "report.json").read_text())
    assert sum(len(t["steps"]) for t in report["traces"]) > 3
    cli, in_process = comparable_run(report), comparable_run(here.model_dump(mode="json"))
    assert cli == in_process, json.dumps({"cli": cli, "in_process": in_process}, default=str)[:6000]
    assert none_left(marker), "the run's driver or Chromium outlived it"


def as_in_a_terminal() -> None:
    """Ctrl-C as a terminal delivers it: a suite started in the background (CI, nohup) hands its children SIGINT
    ignored, and Python then never turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_a_cli_run_at_once_with_nothing_left_running(tmp_path, opera_dir, shop_url):
    marker = f"cli-interrupted-{uuid.uuid4()}"
    ids = import_personas(opera_dir, tmp_path / "cli", marker, 8)
    command = [sys.executable, "-m", "service.cli.main", "simulate", "--url", shop_url + "/", "--personas",
               ",".join(ids), "--max-steps", "30", "--seed", "0", "--out", str(tmp_path / "out")]  # fmt: skip
    run = subprocess.Popen(
        command,
        cwd=REPO,
        env=twinsim_env(tmp_path / "cli", marker),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=as_in_a_terminal,
    )
    deadline = time.monotonic() + 120
    while b"browsing" not in run.stdout.readline() and time.monotonic() < deadline:  # the twins have started
        pass
    time.sleep(1)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130 and b"Traceback" not in err, err[-2000:]
    assert none_left(marker), "the interrupted run's driver or Chromium outlived it"


def test_the_start_page_check_loads_neither_the_graph_nor_the_store():
    """What `twinsim simulate` imports before it starts the browser: if this grew to the graph or Chroma, the browser
    would start only after them, and the run would wait for both again."""
    heavy = ("agent.graph", "langgraph", "chromadb", "personas.memory_store")
    code = (
        "import sys, service.cli.main, service.jobs.simulation_requests; "
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
