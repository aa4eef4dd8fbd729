"""The FastAPI application: settings in, services built once at start-up, routers per resource."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.exceptions import RequestValidationError

from agent.llm.offline_litellm import start_loading as start_loading_litellm
from service.api.allowed_methods import AllowedMethods
from service.api.body_limit import BodyLimit
from service.api.errors import request_validation_response
from service.api.llm_loading import LLM_LOAD_WAIT_S
from service.api.metrics import ServiceMetrics
from service.api.rate_limit import build_limiter, enforce_rate_limit
from service.api.request_log import configure_logging
from service.api.request_middleware import install_request_middleware
from service.api.routes import comparisons, health, metrics, personas, predict
from service.api.routes import experiments as experiment_routes
from service.api.routes import simulations as simulation_routes
from service.api.schemas import SECURED_ERRORS
from service.api.security import require_api_key
from service.api.text_guard import reject_lone_surrogates
from service.container import build_services
from service.jobs.experiment_jobs import start_experiment_jobs
from service.jobs.simulation_jobs import SimulationJobs
from service.settings import Settings

_BODY_SLACK = 512_000  # room for history and JSON escaping around the largest page


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # Whatever the settings (any request may name brain=llm): litellm's import (seconds) runs beside start-up
        # and the first requests, never inside one; a request that comes before it is done falls back.
        start_loading_litellm()
        app.state.services = build_services(settings, llm_load_wait_s=LLM_LOAD_WAIT_S)
        app.state.experiments = start_experiment_jobs(app.state.services)
        app.state.simulations = SimulationJobs(settings.data_dir / "simulations")
        yield
        app.state.simulations.close()  # queued simulations never start; no new one is accepted
        app.state.experiments.close()  # running experiments stop as 'interrupted', resumable

    # The largest page (twice: JSON escaping), the largest screenshot as base64, and room for the rest.
    max_body = settings.max_page_bytes * 2 + (settings.max_screenshot_bytes + 2) // 3 * 4 + _BODY_SLACK
    app = FastAPI(
        title="twinsim",
        version="0.1.0",
        summary="Persona-conditioned digital twins of online shoppers.",
        description=(
            "Predicts a real person's next action on a shopping page (click, type or leave) with a first-person "
            "rationale, from their survey, Big Five scores and interview. Evaluated on OPeRA "
            "(Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0)."
        ),
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.metrics = ServiceMetrics()
    app.state.rate_limiter = build_limiter(settings.rate_limit_per_s, settings.rate_limit_burst)
    configure_logging(settings.log_level)

    app.add_middleware(BodyLimit, max_bytes=max_body)  # counted as it arrives: chunked bodies too
    app.add_middleware(AllowedMethods)  # OPTIONS and 405s name every method of a path

    install_request_middleware(app)  # added last, so outermost: it sees the 413s above too
    app.add_exception_handler(RequestValidationError, request_validation_response)  # type: ignore[arg-type]  # Starlette types handlers for any Exception; this one is registered for RequestValidationError only
    secured = [Depends(require_api_key), Depends(enforce_rate_limit), Depends(reject_lone_surrogates)]
    app.include_router(health.router)
    app.include_router(metrics.router)
    # comparisons first: /experiments/compare and /simulations/compare before /experiments/{id} and /simulations/{id}
    for router in (
        personas.router,
        predict.router,
        comparisons.router,
        simulation_routes.router,
        experiment_routes.router,
    ):
        app.include_router(router, dependencies=secured, responses=SECURED_ERRORS)
    return app
