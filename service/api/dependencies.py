"""FastAPI dependencies, one style for all: what the app's lifespan built, as annotated types a route names.

Everything here is built once at start-up (service/api/app.py) and read from app.state, so a route never
builds its own and nothing escapes the lifespan's shutdown.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from service.container import Services
from service.jobs.experiment_jobs import ExperimentJobs
from service.jobs.simulation_jobs import SimulationJobs


def _services(request: Request) -> Services:
    return request.app.state.services


def _experiment_jobs(request: Request) -> ExperimentJobs:
    return request.app.state.experiments


def _simulation_jobs(request: Request) -> SimulationJobs:
    return request.app.state.simulations


ServicesDep = Annotated[Services, Depends(_services)]
ExperimentJobsDep = Annotated[ExperimentJobs, Depends(_experiment_jobs)]
SimulationJobsDep = Annotated[SimulationJobs, Depends(_simulation_jobs)]
