"""POST /predict: one persona, one page, the history so far -> the next action and why."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, Request, status

from agent.page.observation import EMPTY_OBSERVATION
from agent.page.read_page import PageRefused, ReadPage, read_page
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits
from agent.prediction import Prediction
from agent.screenshots import Screenshot
from personas.memory_store import PersonaNotFound
from personas.persona import Persona
from service.api.dependencies import ServicesDep, SimulationJobsDep
from service.api.schemas import NOT_FOUND, Page, PredictRequest, error
from service.api.screenshot_input import request_screenshot

router = APIRouter(tags=["predict"])


def observe(page: Page | None, max_bytes: int, limits: PageShapeLimits = DEFAULT_PAGE_LIMITS) -> ReadPage | None:
    """The page as the twin reads it, with its simplified HTML (none: page-free); a page over the limits is a 413
    with the reason."""
    if page is None:
        return None
    raw = page.html is not None
    try:
        return read_page(
            page.html if raw else page.simplified_html or "",
            url=page.url,
            simplified=not raw,
            label="page.html" if raw else "page.simplified_html",
            max_bytes=max_bytes,
            limits=limits,
        )
    except PageRefused as error:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, str(error)) from None


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

    def read() -> tuple[ReadPage | None, Screenshot | None, Persona]:  # one trip to a worker thread for all three
        page = observe(request.page, settings.max_page_bytes, settings.page_limits)
        shot = request.screenshot
        screenshot = (
            None
            if shot is None
            else request_screenshot(
                shot.base64, shot.url, jobs, http.url.netloc, settings.screenshot_limits, looks(brain)
            )
        )
        try:
            return page, screenshot, services.store.get_persona(request.persona_id)
        except PersonaNotFound:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"persona '{request.persona_id}' not found") from None

    page, screenshot, persona = await asyncio.to_thread(read)
    prediction = await services.graph.predict(
        persona=persona,
        observation=page.observation if page is not None else EMPTY_OBSERVATION,
        history=request.history,
        brain=brain,
        model=request.model,
        options=request.options,
        task=request.task,
        screenshot=screenshot,
        page_html=page.simplified_html if page is not None else None,
    )
    http.app.state.metrics.observe_prediction(prediction)
    return prediction
