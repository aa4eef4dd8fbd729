"""Two finished runs side by side (agent/comparison/run_comparison.py): GET /experiments/compare?a=ID&b=ID and
GET /simulations/compare?a=ID&b=ID as JSON, and .../compare/report as one HTML page.

Included before the experiment and simulation routers (service/api/app.py), so `compare` is not read as an id.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Query, status
from fastapi.responses import HTMLResponse

from agent.comparison.comparison_error import ComparisonError
from agent.comparison.run_comparison import compare_runs
from agent.reporting.compare_report import render_comparison_html
from service.api.dependencies import ExperimentJobsDep, SimulationJobsDep
from service.api.schemas import NOT_FOUND, error
from service.jobs.experiment_jobs import ExperimentJobs
from service.jobs.experiment_store import ExperimentNotFound
from service.jobs.simulation_jobs import SimulationJobs

router = APIRouter()

NOT_DONE: dict[int | str, dict] = {
    409: error("A run is not finished (queued, running, failed or interrupted): it has no results to compare.")
}
_HTML: dict[int | str, dict] = {
    200: {
        "description": "The comparison: one self-contained HTML page.",
        "content": {"text/html": {"schema": {"type": "string"}}},
    }
}
_ID: dict[str, Any] = {"min_length": 1, "max_length": 200}


def _run_a():
    return Query(..., description="Run A's id (the baseline).", **_ID)


def _run_b():
    return Query(..., description="Run B's id (set against A).", **_ID)


def _experiment(jobs: ExperimentJobs, simulations: SimulationJobs, experiment_id: str) -> tuple[dict, list]:
    try:
        record = jobs.store.get(experiment_id)
    except ExperimentNotFound:
        hint = (
            " (it is a simulation: compare two simulations with GET /simulations/compare)"
            if simulations.get(experiment_id) is not None
            else ""
        )
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"experiment '{experiment_id}' not found{hint}") from None
    if record.results is None:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"experiment '{experiment_id}' has no results yet (status {record.status}, {record.done}/{record.total})",
        )
    return record.results, jobs.store.samples(experiment_id)


def _simulation(simulations: SimulationJobs, jobs: ExperimentJobs, simulation_id: str) -> dict:
    job = simulations.get(simulation_id)
    if job is None:
        hint = ""
        try:
            jobs.store.get(simulation_id)
            hint = " (it is an experiment: compare two experiments with GET /experiments/compare)"
        except ExperimentNotFound:
            pass
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"simulation '{simulation_id}' not found{hint}")
    if job.status != "done" or job.result is None:
        why = f": {job.error}" if job.error else ""
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"simulation '{simulation_id}' has not finished (status "
            f"{job.status}, {len(job.traces)} of {len(job.config.persona_ids)} "
            f"twins done){why}",
        )
    return job.result.model_dump(mode="json")


def _compare(a: dict, b: dict, labels: tuple[str, str], samples=(None, None)) -> dict:
    try:
        return compare_runs(a, b, labels=labels, samples=samples)
    except ComparisonError as problem:
        raise HTTPException(status.HTTP_409_CONFLICT, str(problem)) from None


def _experiments(experiments: ExperimentJobs, simulations: SimulationJobs, a: str, b: str) -> dict:
    (doc_a, samples_a), (doc_b, samples_b) = (_experiment(experiments, simulations, i) for i in (a, b))
    return _compare(doc_a, doc_b, (a, b), (samples_a, samples_b))


def _simulations(simulations: SimulationJobs, experiments: ExperimentJobs, a: str, b: str) -> dict:
    return _compare(_simulation(simulations, experiments, a), _simulation(simulations, experiments, b), (a, b))


@router.get("/experiments/compare", tags=["experiments"], responses=NOT_FOUND | NOT_DONE)
async def compare_experiments(
    experiments: ExperimentJobsDep, simulations: SimulationJobsDep, a: str = _run_a(), b: str = _run_b()
) -> dict:
    """What differs in the two specs, and each variant's outcome rates in A and B (variants matched by name), with
    the difference and a test (McNemar when the same twins ran both, else two-proportion or Fisher's exact)."""
    return await asyncio.to_thread(_experiments, experiments, simulations, a, b)


@router.get(
    "/experiments/compare/report", tags=["experiments"], response_model=None, responses=_HTML | NOT_FOUND | NOT_DONE
)
async def compare_experiments_report(
    experiments: ExperimentJobsDep, simulations: SimulationJobsDep, a: str = _run_a(), b: str = _run_b()
) -> HTMLResponse:
    comparison = await asyncio.to_thread(_experiments, experiments, simulations, a, b)
    return HTMLResponse(render_comparison_html(comparison))


@router.get("/simulations/compare", tags=["simulations"], responses=NOT_FOUND | NOT_DONE)
async def compare_simulations(
    simulations: SimulationJobsDep, experiments: ExperimentJobsDep, a: str = _run_a(), b: str = _run_b()
) -> dict:
    """What differs in the two configs, and the funnel stages, outcomes and task success in A and B with the
    difference and a test (McNemar when the same personas ran both, matched by id, else two-proportion or Fisher's)."""
    return await asyncio.to_thread(_simulations, simulations, experiments, a, b)


@router.get(
    "/simulations/compare/report", tags=["simulations"], response_model=None, responses=_HTML | NOT_FOUND | NOT_DONE
)
async def compare_simulations_report(
    simulations: SimulationJobsDep, experiments: ExperimentJobsDep, a: str = _run_a(), b: str = _run_b()
) -> HTMLResponse:
    comparison = await asyncio.to_thread(_simulations, simulations, experiments, a, b)
    return HTMLResponse(render_comparison_html(comparison))
