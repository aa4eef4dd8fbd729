"""Experiments on Ray (TWINSIM_EXECUTOR=ray): a real local Ray head on loopback runs the units in its worker
processes, and the samples and the result document are exactly those of the in-process executor for the same
spec and seed, through the runner, a stop-and-resume, and the `twinsim experiment run` CLI."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from agent.brains.embedded import EmbeddedBrain
from agent.executors.ray_units import RayExecutor
from agent.executors.units import InProcessExecutor
from agent.experiments.prepared import prepare
from agent.experiments.runner import RunInterrupted, run_experiment
from personas.sources import load_personas
from tests.conftest import ray_batches_run
from tests.test_experiment_cli import PERSONA_FILES, invoke, write_spec
from tests.test_experiment_runner import product_spec

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def pool(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")


@pytest.fixture(scope="module")
def brain():
    return EmbeddedBrain()


def dumped(samples):
    return [s.model_dump() for s in samples]


def test_units_run_in_ray_worker_processes_and_come_back_in_unit_order(ray_head, pool):
    units = prepare(product_spec(), pool, memory=None).units()
    executor = RayExecutor(batch_size=7, max_in_flight=2)  # many small batches through a narrow window
    results = list(executor.map(lambda unit: (unit, os.getpid()), units))
    assert [unit for unit, _ in results] == units
    pids = {pid for _, pid in results}
    assert os.getpid() not in pids  # not run here: in Ray's workers


def test_ray_gives_the_same_samples_and_result_document_as_in_process(ray_head, pool, brain):
    from agent.behaviour.text_relevance import static_embedder
    from agent.experiments.results import experiment_results

    embed = static_embedder().embed
    documents, samples = [], []
    for executor in (InProcessExecutor(), RayExecutor(batch_size=16)):
        prepared = prepare(product_spec(), pool, memory=None)
        outcome = run_experiment(prepared, embedded=brain, executor=executor)
        samples.append(dumped(outcome.samples))
        document = experiment_results(prepared, outcome, embed=embed)
        document["cost"].pop("wall_s")
        documents.append(document)
    assert len(samples[1]) == 12 * 5 * 2
    assert samples[1] == samples[0]
    assert documents[1] == documents[0]
    other_seed = run_experiment(
        prepare(product_spec(seed=12), pool, memory=None), embedded=brain, executor=RayExecutor(batch_size=16)
    )
    assert dumped(other_seed.samples) != samples[0]  # the seed reaches the workers


def test_a_stopped_ray_run_resumes_to_the_in_process_result(ray_head, pool, brain):
    spec = product_spec(samples_per_persona=20)  # 480 units: the first hand-out (200) comes before the end
    stop = threading.Event()
    kept = []
    with pytest.raises(RunInterrupted):
        run_experiment(
            prepare(spec, pool, memory=None),
            embedded=brain,
            executor=RayExecutor(batch_size=32),
            on_samples=kept.extend,
            on_progress=lambda progress: stop.set(),
            stop=stop,
        )
    assert 0 < len(kept) < 480
    resumed = run_experiment(
        prepare(spec, pool, memory=None), embedded=brain, executor=RayExecutor(batch_size=32), done=kept
    )
    assert resumed.resumed == len(kept)
    reference = run_experiment(prepare(spec, pool, memory=None), embedded=brain)
    assert dumped(resumed.samples) == dumped(reference.samples)


def test_the_cli_runs_on_ray_when_the_setting_says_so(ray_head, tmp_path, monkeypatch):
    monkeypatch.setenv("TWINSIM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec = write_spec(tmp_path)
    persona_args = [arg for path in PERSONA_FILES for arg in ("--personas", path)]
    documents = {}
    batches = {}
    for executor in ("inprocess", "ray"):
        batches[executor] = ray_batches_run(ray)
        monkeypatch.setenv("TWINSIM_EXECUTOR", executor)
        out = tmp_path / executor
        result = invoke(spec, "--out", out, *persona_args)
        assert result.exit_code == 0, result.output
        documents[executor] = json.loads((out / "results.json").read_text())
        documents[executor]["cost"].pop("wall_s")
    assert documents["ray"]["cost"]["samples"] == 2 * 10 * 2
    assert documents["ray"] == documents["inprocess"]
    deadline = time.monotonic() + 30  # a wait for Ray's event report, not a speed assertion
    while ray_batches_run(ray) == batches["ray"] and time.monotonic() < deadline:
        time.sleep(0.5)
    assert ray_batches_run(ray) > batches["ray"]  # the setting sent the twins to Ray
