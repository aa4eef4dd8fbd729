"""POST /predict: one persona, one page, the history so far -> the next action and why.

The route only translates HTTP: the request into the agent's `PredictionInput` (its screenshot checked here, since
a screenshot URL names one of this service's own simulations), the use case's errors into a 404 or 413."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, Request, status

from agent.page.read_page import PageRefused
from agent.predict_use_case import PredictionServices, page_reader
from agent.predict_use_case import predict as predict_next
from agent.prediction import Prediction
from agent.screenshots import Screenshot
from personas.memory_store import PersonaNotFound
from service.api.dependencies import ServicesDep, SimulationJobsDep
from service.api.schemas import NOT_FOUND, PredictRequest, error
from service.api.screenshot_input import request_screenshot

router = APIRouter(tags=["predict"])


@router.post(
    "/predict",
    response_model=Prediction,
    responses={
        **NOT_FOUND,
        422: error(
            "Invalid input, a screenshot that is not a PNG, JPEG or WebP within the limits, or a "
            "screenshot URL that is not one of this service's own simulations."
        ),
    },
)
async def predict(request: PredictRequest, http: Request, services: ServicesDep, jobs: SimulationJobsDep) -> Prediction:
    settings = services.settings
    brain = request.brain or settings.default_brain

    def looks(name: str) -> bool:
        """Whether the brain will look at the screenshot: only then are its pixels decoded (the embedded never)."""
        try:
            wants = getattr(services.graph.brain(name), "wants_screenshot", None)
        except ValueError:  # an unknown brain: the graph refuses it with the reason
            return False
        return wants is not None and wants(request.model, request.options)

    def screenshot() -> Screenshot | None:
        shot = request.screenshot
        return (
            None
            if shot is None
            else request_screenshot(
                shot.base64, shot.url, jobs, http.url.netloc, settings.screenshot_limits, looks(brain)
            )
        )

    shot = await asyncio.to_thread(screenshot) if request.screenshot is not None else None
    agent_services = PredictionServices(
        graph=services.graph,
        personas=services.store,
        read=page_reader(settings.max_page_bytes, settings.page_limits),
        default_brain=settings.default_brain,
    )
    try:
        prediction = await predict_next(request.to_input(shot), agent_services)
    except PageRefused as refused:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, str(refused)) from None
    except PersonaNotFound:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"persona '{request.persona_id}' not found") from None
    http.app.state.metrics.observe_prediction(prediction)
    return prediction
