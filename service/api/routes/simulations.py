"""Live UX simulations over HTTP: POST /simulations starts one (202 + id), GET /simulations/{id} shows
its status, traces and funnel, GET /simulations lists them. Everything checkable is checked first."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import FileResponse
from pydantic import ValidationError

from agent.simulation import SimulationConfig
from service.api.dependencies import ServicesDep, SimulationJobsDep
from service.api.errors import validation_detail
from service.api.schemas import NOT_FOUND, SimulationRequest, error
from service.api.screenshot_input import simulation_screenshot_file
from service.jobs.simulation_requests import (
    SimulationRequestError,
    StartPageFailed,
    UnknownPersonas,
    check_start_page,
)
from service.jobs.simulations import check_and_load, persona_ids_for

router = APIRouter(prefix="/simulations", tags=["simulations"])


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        404: error("A persona named is not stored."),
        422: error(
            "Invalid input, or a start page the schema cannot judge: one that does not answer, answers an HTTP "
            "error or is not on an allowed host (TWINSIM_ALLOWED_HOSTS). The detail says which and why."
        ),
        503: error("Chromium is not installed where the service runs."),
    },
)
async def start_simulation(body: SimulationRequest, services: ServicesDep, jobs: SimulationJobsDep) -> dict:
    if not body.all and not body.personas:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "name personas, or set all: true")
    try:
        ids = await asyncio.to_thread(persona_ids_for, services, body.personas, body.all)
        config = SimulationConfig(
            url=body.url,
            persona_ids=ids,
            max_steps=body.max_steps,
            brain=body.brain,
            model=body.model,
            seed=body.seed,
            screenshots=body.screenshots,
            vision=body.vision,
            grounding=body.grounding,
            concurrency=body.concurrency,
            task=body.task,
            checkout_details=body.checkout_details,
        )
        if not await asyncio.to_thread(services.settings.host_allow_list.allows, config.url):
            raise SimulationRequestError(f"cannot browse {config.url}: not on an allowed host (TWINSIM_ALLOWED_HOSTS)")
        personas = await asyncio.to_thread(check_and_load, services, config)
        await asyncio.to_thread(check_start_page, config, services.settings.host_allow_list)
    except ValidationError as error:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, validation_detail(error)) from None
    except UnknownPersonas as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None
    except StartPageFailed as error:  # a dead start URL is bad input like an unknown persona: 422 with the reason
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(error)) from None
    except SimulationRequestError as error:
        code = (
            status.HTTP_503_SERVICE_UNAVAILABLE if "Chromium" in str(error) else status.HTTP_422_UNPROCESSABLE_CONTENT
        )
        raise HTTPException(code, str(error)) from None
    job = jobs.submit(services, config, personas)
    return {"id": job.id, "status": job.status, "url": f"/simulations/{job.id}"}


@router.get("")
async def list_simulations(jobs: SimulationJobsDep) -> list[dict]:
    return [job.view(full=False) for job in jobs.all()]


@router.get("/{simulation_id}/screenshots/{persona_id}/{file_name}", responses=NOT_FOUND, response_class=FileResponse)
async def get_simulation_screenshot(
    simulation_id: str, persona_id: str, file_name: str, jobs: SimulationJobsDep
) -> FileResponse:
    """A screenshot a twin's step was decided on (the trace's `screenshot`, under this simulation); also what
    POST /predict accepts as a screenshot URL."""
    path = await asyncio.to_thread(simulation_screenshot_file, jobs, simulation_id, persona_id, file_name)
    return FileResponse(path, media_type="image/png")


@router.get("/{simulation_id}", responses=NOT_FOUND)
async def get_simulation(simulation_id: str, jobs: SimulationJobsDep) -> dict:
    job = jobs.get(simulation_id)
    if job is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"simulation '{simulation_id}' not found")
    return job.view()
