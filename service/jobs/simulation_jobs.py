"""Live simulations started over HTTP: each runs on a worker thread with its own event loop (the API's
loop never waits on a browser), one at a time on this small machine, and is kept in memory with its
traces as they arrive. Outputs are also written under <data_dir>/simulations/<id>/.
"""

from __future__ import annotations

import contextvars
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from agent.simulation import SimulationConfig, SimulationResult
from agent.simulation.funnel import summarise
from agent.simulation.run import simulation_task_success
from agent.simulation.trace import TwinTrace
from personas.persona import Persona
from service.container import Services
from service.jobs.simulation_requests import StartPageFailed
from service.jobs.simulations import run_blocking
from service.tenancy import ADMIN, current_tenant

Status = Literal["queued", "running", "done", "failed"]


class SimulationJobsClosed(RuntimeError):
    """The service is stopping: no simulation starts any more."""


@dataclass
class SimulationJob:
    id: str
    config: SimulationConfig
    out_dir: Path
    created_at: str
    status: Status = "queued"
    traces: list[TwinTrace] = field(default_factory=list)
    result: SimulationResult | None = None
    error: str | None = None
    tenant: str = field(default_factory=current_tenant)  # who started it: only they (and admins) see it

    def view(self, full: bool = True) -> dict:
        traces = self.result.traces if self.result else list(self.traces)
        body = {
            "id": self.id,
            "status": self.status,
            "url": self.config.url,
            "created_at": self.created_at,
            "twins": len(self.config.persona_ids),
            "finished_twins": len(traces),
            "error": self.error,
        }  # never out_dir: where the server keeps files is its own
        if full:
            body["config"] = self.config.model_dump(mode="json")
            body["funnel"] = (self.result.funnel if self.result else summarise(traces)).model_dump(mode="json")
            body["traces"] = [trace.model_dump(mode="json") for trace in traces]
            body["task"] = simulation_task_success(self.config, traces)
        return body


class SimulationJobs:
    """Built and closed by the app's lifespan (service/api/app.py), like the experiment jobs."""

    def __init__(self, root: Path, parallel: int = 1) -> None:
        self.root = root
        self._jobs: dict[str, SimulationJob] = {}
        self._lock = threading.Lock()
        self._slots = threading.Semaphore(parallel)
        self._closed = False

    def submit(self, services: Services, config: SimulationConfig, personas: list[Persona]) -> SimulationJob:
        job_id = uuid.uuid4().hex[:12]
        job = SimulationJob(
            id=job_id,
            config=config,
            out_dir=self.root / job_id,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        with self._lock:
            if self._closed:
                raise SimulationJobsClosed("the service is stopping; no new simulation starts")
            self._jobs[job_id] = job
        # A daemon thread: a server shutting down never waits on a browser. It runs in a copy of the caller's
        # context, so its twins recall memories as the tenant that started it.
        threading.Thread(
            target=contextvars.copy_context().run,
            args=(self._run, job, services, personas),
            name=f"simulation-{job_id}",
            daemon=True,
        ).start()
        return job

    def _run(self, job: SimulationJob, services: Services, personas: list[Persona]) -> None:
        with self._slots:
            with self._lock:
                if self._closed:  # close() failed it while it waited for the slot
                    return
                job.status = "running"
            try:
                job.result = run_blocking(services, job.config, personas, job.out_dir, on_trace=self._collect(job))
                job.status = "done"
            except StartPageFailed as error:  # the site went away after the up-front check: no twin saw it
                job.error = str(error)
                job.status = "failed"
            except Exception as error:  # noqa: BLE001 - recorded for GET /simulations/{id}; a worker thread has no caller to raise to
                job.error = f"{type(error).__name__}: {error}"
                job.status = "failed"

    def _collect(self, job: SimulationJob):
        def add(trace: TwinTrace) -> None:
            with self._lock:
                job.traces.append(trace)

        return add

    def close(self) -> None:
        """At shutdown: refuse new simulations and fail the queued ones (they live in memory only, so nothing
        could resume them). A running one keeps its daemon thread: a stopping server never waits on a browser."""
        with self._lock:
            self._closed = True
            for job in self._jobs.values():
                if job.status == "queued":
                    job.status, job.error = "failed", "the service stopped before this simulation started"

    def get(self, job_id: str) -> SimulationJob | None:
        """The current tenant's simulation; another tenant's is None, as if it did not exist."""
        with self._lock:
            job = self._jobs.get(job_id)
        return job if job is not None and _visible(job) else None

    def all(self) -> list[SimulationJob]:
        with self._lock:
            return sorted((job for job in self._jobs.values() if _visible(job)), key=lambda job: job.created_at)


def _visible(job: SimulationJob) -> bool:
    tenant = current_tenant()
    return tenant == ADMIN or job.tenant == tenant
