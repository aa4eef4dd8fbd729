"""Evaluations on Ray (TWINSIM_EXECUTOR=ray): a real local Ray head on loopback replays the recorded steps in its
worker processes, with the memories recalled ahead from a real Chroma store, and every step's prediction and
rationale is exactly that of the in-process run; through the runner, a resumed run and `twinsim eval`."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.evaluation.runner import EvalConfig, evaluate
from agent.executors.ray_units import RayExecutor
from agent.graph import TwinGraph
from agent.recorded_sessions import read_action_table
from personas.sources import load_personas
from service.cli.main import app
from service.container import build_brains, build_llm_client
from service.settings import Settings
from tests.conftest import ray_batches_run

pytest.importorskip("ray")

SMALL = Path(__file__).resolve().parent / "fixtures" / "opera_small"
N_STEPS = 24


@pytest.fixture(scope="module")
def personas():
    return {p.id: p for p in load_personas(SMALL / "personas.jsonl")}


@pytest.fixture(scope="module")
def graph(personas, tmp_path_factory):
    """The twin graph on a real embedded Chroma store holding the fixture's personas."""
    from personas.open_store import open_memory_store

    store = open_memory_store(path=tmp_path_factory.mktemp("chroma"))
    for persona in personas.values():
        store.put_persona(persona)
    settings = Settings()
    return TwinGraph(build_brains(settings, build_llm_client(settings)), memory=store)


def steps_of(checkpoint: Path) -> list[tuple]:
    """Each step's prediction, click type, fallback flag and rationale, from the run's step log."""
    rows = [json.loads(line) for line in checkpoint.read_text().splitlines()[1:]]
    return sorted(
        (
            r["session_id"],
            r["step"],
            json.dumps(r["pred"], sort_keys=True),
            r["pred_click_type"],
            r["fallback"],
            r["rationale"],
        )
        for r in rows
    )


def run(sessions, personas, graph, checkpoint: Path, executor=None, **config):
    return asyncio.run(
        evaluate(sessions, personas, graph, EvalConfig(checkpoint=checkpoint, **config), executor=executor)
    )


def test_an_unreachable_ray_head_is_a_clear_cli_error(tmp_path):
    import ray

    if ray.is_initialized():  # a Ray left running in this process would be reused whatever the address says
        ray.shutdown()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]  # bound, never listening: connections are refused
        result = CliRunner().invoke(
            app,
            ["eval", "--actions", str(SMALL / "actions_page_free.jsonl"), "--users", str(SMALL / "personas.jsonl")],
            env={
                "TWINSIM_DATA_DIR": str(tmp_path / "data"),
                "TWINSIM_EXECUTOR": "ray",
                "TWINSIM_RAY_ADDRESS": f"127.0.0.1:{closed_port}",
            },
        )
    assert result.exit_code == 2, result.output
    assert f"the Ray head at 127.0.0.1:{closed_port} (TWINSIM_RAY_ADDRESS) does not answer" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("brain", ["embedded", "repeat-previous"])
def test_ray_replays_every_step_exactly_as_in_process(ray_head, personas, graph, tmp_path, brain):
    sessions = read_action_table(SMALL / "actions.parquet")  # page-conditioned: pages travel to the workers
    before = ray_batches_run(ray_head)
    here = run(sessions, personas, graph, tmp_path / "here.jsonl", brain=brain)
    there = run(sessions, personas, graph, tmp_path / "there.jsonl", executor=RayExecutor(batch_size=5), brain=brain)
    assert there["run"]["executor"] == "ray" and here["run"]["executor"] == "inprocess"
    assert len(steps_of(tmp_path / "there.jsonl")) == N_STEPS
    assert steps_of(tmp_path / "there.jsonl") == steps_of(tmp_path / "here.jsonl")
    assert there["metrics"] == here["metrics"]
    deadline = time.monotonic() + 30  # a wait for Ray's task events, not a speed assertion
    while ray_batches_run(ray_head) == before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert ray_batches_run(ray_head) >= before + 1  # the steps ran as Ray tasks (24 steps in batches of 5)


def test_the_workers_answer_from_the_memories_recalled_ahead(ray_head, personas, graph, tmp_path):
    """The embedded twin's rationales quote its memories: with the memory ablated they change, so equal
    rationales on Ray mean the workers saw the very memories the in-process graph recalled."""
    sessions = read_action_table(SMALL / "actions.parquet")
    run(sessions, personas, graph, tmp_path / "here.jsonl")
    run(sessions, personas, graph, tmp_path / "there.jsonl", executor=RayExecutor(batch_size=8))
    run(sessions, personas, graph, tmp_path / "no_memory.jsonl", ablate=frozenset({"memory"}))
    rationales = {
        name: [row[-1] for row in steps_of(tmp_path / f"{name}.jsonl")] for name in ("here", "there", "no_memory")
    }
    assert rationales["there"] == rationales["here"]
    assert rationales["no_memory"] != rationales["here"]


def test_a_run_resumed_on_ray_finishes_what_an_in_process_run_started(ray_head, personas, graph, tmp_path):
    sessions = read_action_table(SMALL / "actions.parquet")
    checkpoint = tmp_path / "run.jsonl"
    run(sessions[:2], personas, graph, checkpoint)  # "stopped" after two sessions: same settings, same log
    started = len(steps_of(checkpoint))
    resumed = run(sessions, personas, graph, checkpoint, executor=RayExecutor(batch_size=4))
    reference = run(sessions, personas, graph, tmp_path / "reference.jsonl")
    assert 0 < started < N_STEPS and resumed["run"]["resumed_steps"] == started
    assert steps_of(checkpoint) == steps_of(tmp_path / "reference.jsonl")
    assert resumed["metrics"] == reference["metrics"]


def test_twinsim_eval_runs_on_ray_when_the_setting_says_so(ray_head, tmp_path):
    reports = {}
    for executor in ("inprocess", "ray"):
        out = tmp_path / f"{executor}.json"
        result = CliRunner().invoke(
            app,
            [
                "eval",
                "--actions",
                str(SMALL / "actions_page_free.jsonl"),
                "--users",
                str(SMALL / "personas.jsonl"),
                "--out",
                str(out),
            ],
            env={"TWINSIM_DATA_DIR": str(tmp_path / "data"), "TWINSIM_EXECUTOR": executor},
        )
        assert result.exit_code == 0, result.output
        reports[executor] = json.loads(out.read_text())
    assert ("as Ray tasks" in result.output) and reports["ray"]["run"]["executor"] == "ray"
    assert reports["ray"]["metrics"] == reports["inprocess"]["metrics"]
    assert steps_of(tmp_path / "ray.checkpoint.jsonl") == steps_of(tmp_path / "inprocess.checkpoint.jsonl")
