"""An embedded store belongs to one process: a second `twinsim serve` or `personas import` on the same data
directory is refused with a way out (a Chroma server), instead of starting and later breaking the first
process (Chroma's "Error finding id"); a process killed with the lock held does not block the next one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from personas.open_store import open_memory_store
from tests.support.service_process import ServiceProcess, free_port

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from service.cli.main import main; main()"]
HANG_GUARD_S = 300  # the old code started a second server that never exits: fail instead of waiting forever


def twinsim(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TWINSIM_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", "COLUMNS": "400"}
    env.pop("TWINSIM_CHROMA_URL", None)
    try:
        return subprocess.run([*CLI, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=HANG_GUARD_S)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(
            f"`twinsim {' '.join(args)}` ran on a store another process holds:\n{expired.stdout}{expired.stderr}"
        )


def assert_refused(run: subprocess.CompletedProcess) -> None:
    assert run.returncode == 2, run.stdout + run.stderr
    assert "in use by another process" in run.stderr and "TWINSIM_CHROMA_URL" in run.stderr
    assert "Traceback" not in run.stderr + run.stdout


def test_a_second_process_on_a_held_embedded_store_is_refused(tmp_path, opera_dir):
    with ServiceProcess({"TWINSIM_DATA_DIR": str(tmp_path)}) as first:
        assert_refused(twinsim(tmp_path, "serve", "--port", str(free_port())))
        assert_refused(twinsim(tmp_path, "personas", "import", str(opera_dir / "users_sample.csv")))
        # and the first process goes on serving from a store nobody else wrote to
        assert httpx.get(f"{first.url}/personas", timeout=30).status_code == 200
        assert httpx.get(f"{first.url}/healthz", timeout=30).status_code == 200


def test_several_workers_on_an_embedded_store_are_refused(tmp_path):
    run = twinsim(tmp_path, "serve", "--port", str(free_port()), "--workers", "2")
    assert run.returncode == 2 and "TWINSIM_CHROMA_URL" in run.stderr, run.stdout + run.stderr


def test_the_lock_of_a_killed_process_does_not_block(tmp_path):
    code = (
        "from personas.open_store import open_memory_store; import sys, time; "
        f"open_memory_store(path={str(tmp_path / 'chroma')!r}); print('holding', flush=True); time.sleep(600)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=60)
    finally:
        holder.kill()
        holder.wait()
    store = open_memory_store(path=tmp_path / "chroma")  # raises StoreInUse if the dead process still blocked it
    assert store.persona_ids() == []
