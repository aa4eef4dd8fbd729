"""Crash safety of bulk persona import: `kill -9` the real `twinsim personas import` mid-run (first import,
then a re-import that replaces every persona), reopen the store as a restarted process would, and every
persona is whole (exactly its memories, all recallable) or absent. Then the import re-runs to completion.

(The crash safety of experiment results is the experiments' own test.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from personas.memory_texts import persona_memory_texts
from personas.open_store import open_memory_store
from personas.sources import load_personas

pytestmark = pytest.mark.integration

# The CLI of this checkout (the console script would run whichever checkout the virtualenv installed).
TWINSIM = [sys.executable, "-c", "from service.cli.main import main; main()"]
REPO = Path(__file__).resolve().parents[1]


def import_and_kill(jsonl: Path, data_dir: Path, kill_after: int, *options: str) -> int:
    """Run the import; SIGKILL it right after it reports `kill_after` personas. Returns how many it reported."""
    env = {**os.environ, "TWINSIM_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", "COLUMNS": "400"}
    proc = subprocess.Popen(
        [*TWINSIM, "personas", "import", *options, str(jsonl)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    reported = 0
    try:
        deadline = time.monotonic() + 600
        for line in proc.stdout:
            if line.startswith(("imported ", "replaced ")):
                reported += 1
                if reported >= kill_after:
                    time.sleep(0.05)  # land inside the next persona's write
                    break
            assert time.monotonic() < deadline, "the import made no progress"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"the import finished before the kill (exit {proc.returncode})"
    return reported


def check_store(chroma_path: str) -> None:
    """Run in a fresh process (a restart): print, as JSON, the personas present and what is wrong with them."""
    store = open_memory_store(path=chroma_path)
    present, problems = store.persona_ids(), []
    for pid in present:
        persona = store.get_persona(pid)
        texts = [text for _, text in persona_memory_texts(persona)]
        memories = store.list_memories(pid, limit=10_000)
        if [m.text for m in memories] != texts:
            problems.append(f"{pid}: {len(memories)} memories stored, {len(texts)} expected")
        recalled = store.recall(pid, "how do I shop online", k=5)
        if not recalled or not {m.id for m in recalled} <= {m.id for m in memories}:
            problems.append(f"{pid}: recall returned {[m.id for m in recalled]}")
    print(json.dumps({"present": present, "problems": problems}))


def assert_whole_or_absent(data_dir: Path, expected: dict[str, int]) -> set[str]:
    # A new process, as after a restart: an embedded Chroma store is never shared by two live processes.
    code = f"from tests.test_crash_safety import check_store; check_store({str(data_dir / 'chroma')!r})"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["problems"] == []
    present = set(report["present"])
    assert present <= set(expected)
    return present


def test_kill_9_during_bulk_import_leaves_each_persona_whole_or_absent(tmp_path, opera_dir):
    jsonl = opera_dir / "personas.jsonl"
    expected = {p.id: len(persona_memory_texts(p)) for p in load_personas(jsonl)}
    assert len(expected) >= 50

    reported = import_and_kill(jsonl, tmp_path, kill_after=5)
    present = assert_whole_or_absent(tmp_path, expected)
    assert reported <= len(present) < len(expected)  # what was reported is there; the rest is absent, not half-there

    reported = import_and_kill(jsonl, tmp_path, 8, "--replace")  # replacing whole personas this time
    assert_whole_or_absent(tmp_path, expected)

    env = {**os.environ, "TWINSIM_DATA_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    finished = subprocess.run(
        [*TWINSIM, "personas", "import", str(jsonl)], env=env, cwd=REPO, capture_output=True, text=True, timeout=900
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert assert_whole_or_absent(tmp_path, expected) == set(expected)
