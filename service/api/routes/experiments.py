"""A/B experiments on populations of twins: submit (202, runs in the background), list, read, report, resume,
and the decision export (every twin's every step, and the pages they read)."""

from __future__ import annotations

import asyncio
from typing import Literal

from fastapi import APIRouter, HTTPException, Path, Query, status
from fastapi.responses import FileResponse, HTMLResponse

from agent.brains.names import BrainName
from agent.experiments.planning import ExperimentRejected, check_experiment
from agent.exports.run_export import DECISIONS_JSONL, DECISIONS_PARQUET, page_path
from agent.reporting.experiment_report import render_report
from service.api.dependencies import ExperimentJobsDep
from service.api.llm_loading import STILL_LOADING, require_llm_client
from service.api.paging import limit_query, offset_query
from service.api.schemas import CONFLICT, NOT_FOUND, ExperimentRequest, error
from service.jobs.experiment_jobs import ExperimentJobs
from service.jobs.experiment_store import ExperimentNotFound, ExperimentRecord
from service.tenancy import acting_as

router = APIRouter(tags=["experiments"])


def _summary(record: ExperimentRecord) -> dict:
    return {
        "id": record.id,
        "name": record.name,
        "status": record.status,
        "progress": record.progress,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "error": record.error,
    }


def _record(jobs: ExperimentJobs, experiment_id: str) -> ExperimentRecord:
    try:
        return jobs.store.get(experiment_id)
    except ExperimentNotFound:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"experiment '{experiment_id}' not found") from None


@router.post(
    "/experiments",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        422: error(
            "Invalid spec, or one the schema cannot judge: a page or live_url that does not answer, is not on an "
            "allowed host (TWINSIM_ALLOWED_HOSTS) or has no named element; personas or traits the store does not "
            "hold; more predictions or LLM spend than allowed. The detail says which and why."
        ),
        **STILL_LOADING,
    },
)
async def create_experiment(spec: ExperimentRequest, jobs: ExperimentJobsDep) -> dict:
    """Validate the spec fully (personas, population, pages, sizes, budget), then run it in the background."""
    if spec.brain == BrainName.LLM:  # its cost estimate and probe need litellm: never wait here for its import
        await require_llm_client()
    try:  # page fetching, simplifying, parsing and memory recall are blocking: off the event loop
        checked = await asyncio.to_thread(check_experiment, jobs.context, spec)
    except ExperimentRejected as error:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(error)) from None
    experiment_id = await asyncio.to_thread(jobs.submit, checked)
    return {
        "id": experiment_id,
        "status": "queued",
        "total": len(checked.prepared.units()),
        "personas": len(checked.prepared.personas),
        "estimate": checked.estimate,
        "notes": checked.prepared.notes,  # what is checked only at run time (targets on live variants' pages)
        "links": {"self": f"/experiments/{experiment_id}", "report": f"/experiments/{experiment_id}/report"},
    }


@router.get("/experiments")
async def list_experiments(
    jobs: ExperimentJobsDep, limit: int = limit_query(100, 1000), offset: int = offset_query()
) -> list[dict]:
    return [_summary(r) for r in await asyncio.to_thread(jobs.store.list, limit, offset)]


@router.get("/experiments/{experiment_id}", responses=NOT_FOUND)
async def get_experiment(experiment_id: str, jobs: ExperimentJobsDep) -> dict:
    """Status and progress; the results (spec, analysis, themes, cost) once done."""
    record = await asyncio.to_thread(_record, jobs, experiment_id)
    return {**_summary(record), "spec": record.spec, "results": record.results}


_HTML: dict[int | str, dict] = {
    200: {
        "description": "The report: one self-contained HTML page.",
        "content": {"text/html": {"schema": {"type": "string"}}},
    }
}


# JSON is the default response class so that its errors are documented as JSON; the page itself is text/html
@router.get("/experiments/{experiment_id}/report", response_model=None, responses=_HTML | NOT_FOUND | CONFLICT)
async def experiment_report(experiment_id: str, jobs: ExperimentJobsDep) -> HTMLResponse:
    record = await asyncio.to_thread(_record, jobs, experiment_id)
    if record.results is None:
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"experiment '{experiment_id}' has no results yet (status {record.status}, {record.done}/{record.total})",
        )
    return HTMLResponse(await asyncio.to_thread(render_report, record.results))


@router.post(
    "/experiments/{experiment_id}/resume", status_code=status.HTTP_202_ACCEPTED, responses=NOT_FOUND | CONFLICT
)
async def resume_experiment(experiment_id: str, jobs: ExperimentJobsDep) -> dict:
    """Continue an interrupted (or failed) run; finished samples are kept and skipped."""
    record = await asyncio.to_thread(_record, jobs, experiment_id)
    try:
        with acting_as(record.tenant):  # an admin resumes a tenant's run as that tenant, with its personas
            await asyncio.to_thread(jobs.resume, experiment_id)
    except ExperimentRejected as error:
        raise HTTPException(status.HTTP_409_CONFLICT, str(error)) from None
    return _summary(await asyncio.to_thread(_record, jobs, experiment_id))


_FILES: dict[int | str, dict] = {
    200: {"description": "The file.", "content": {"application/vnd.apache.parquet": {}, "application/x-ndjson": {}}}
}


@router.get("/experiments/{experiment_id}/decisions", response_model=None, responses=_FILES | NOT_FOUND | CONFLICT)
async def experiment_decisions(
    experiment_id: str,
    jobs: ExperimentJobsDep,
    format: Literal["parquet", "jsonl"] = Query(
        "parquet", description="parquet (written when the run is done) or jsonl (as it goes)"
    ),
) -> FileResponse:
    """The decision export: one row per twin decision, columns in docs/experiments.md ("Decision export")."""
    record = await asyncio.to_thread(_record, jobs, experiment_id)
    directory = jobs.export_dir(experiment_id)
    name = DECISIONS_PARQUET if format == "parquet" else DECISIONS_JSONL
    if not (directory / name).exists():
        why = (
            "it ran before decisions were exported"
            if not (directory / DECISIONS_JSONL).exists() and record.status == "done"
            else f"status {record.status}, {record.done}/{record.total}; the Parquet file is written when the run is "
            "done"
        )
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment '{experiment_id}' has no {name} ({why})")
    media = "application/vnd.apache.parquet" if format == "parquet" else "application/x-ndjson"
    return FileResponse(directory / name, media_type=media, filename=f"{experiment_id}-{name}")


_PAGE: dict[int | str, dict] = {
    200: {"description": "The page, as an attachment.", "content": {"text/html": {"schema": {"type": "string"}}}}
}


@router.get("/experiments/{experiment_id}/pages/{sha256}", response_model=None, responses=_PAGE | NOT_FOUND)
async def experiment_page(
    experiment_id: str,
    jobs: ExperimentJobsDep,
    sha256: str = Path(..., pattern="^[0-9a-f]{64}$", description="a row's page_sha256"),
) -> FileResponse:
    """A page the twins read, as stored by the export; sent as an attachment, never rendered from this origin."""
    await asyncio.to_thread(_record, jobs, experiment_id)
    path = page_path(jobs.export_dir(experiment_id), sha256)
    if not path.exists():
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"experiment '{experiment_id}' has no page {sha256}")
    return FileResponse(
        path, media_type="text/html; charset=utf-8", filename=f"{sha256}.html", content_disposition_type="attachment"
    )
