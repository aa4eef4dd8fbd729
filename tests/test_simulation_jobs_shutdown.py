"""Simulation jobs belong to the app's lifespan like experiment jobs: built at start-up, closed at shutdown.
Once closed they refuse new work and queued simulations never start; a running one is left to finish on its
daemon thread (a browser cannot be stopped midway, and a stopping server never waits on one)."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient

from agent.simulation import SimulationConfig
from service.api.app import create_app
from service.jobs import simulation_jobs
from service.jobs.simulation_jobs import SimulationJobs
from service.settings import Settings


def config(path: str) -> SimulationConfig:
    return SimulationConfig(url=f"http://127.0.0.1:9/{path}", persona_ids=["nobody"], max_steps=1)


def wait_for(condition, limit_s: float = 30) -> None:
    deadline = time.monotonic() + limit_s  # a guard against hanging, not a speed assertion
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_the_apps_shutdown_closes_its_simulation_jobs(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    with TestClient(app) as client:
        assert client.get("/simulations").json() == []
        jobs, services = app.state.simulations, app.state.services
    with pytest.raises(RuntimeError, match="stopping"):
        jobs.submit(services, config("after-shutdown"), [])
    assert jobs.all() == []


def test_closing_refuses_new_work_and_fails_queued_simulations(tmp_path, monkeypatch):
    release, started = threading.Event(), []

    def run_until_released(services, config, personas, out_dir, on_trace=None):
        started.append(config.url)
        release.wait(30)

    monkeypatch.setattr(simulation_jobs, "run_blocking", run_until_released)
    jobs = SimulationJobs(tmp_path, parallel=1)
    running = jobs.submit(None, config("running"), [])
    wait_for(lambda: running.status == "running")
    queued = jobs.submit(None, config("queued"), [])
    jobs.close()
    assert queued.status == "failed" and "stopped" in queued.error
    with pytest.raises(RuntimeError, match="stopping"):
        jobs.submit(None, config("refused"), [])
    release.set()
    wait_for(lambda: running.status != "running")
    time.sleep(0.1)  # the queued job's thread takes the free slot now, and must not run
    assert running.status == "done" and started == [config("running").url]
    assert [job.id for job in jobs.all()] == [running.id, queued.id]
