"""POST /predict: one persona, one page, the history so far -> the next action and why."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, Request, status

from agent.observation import EMPTY_OBSERVATION, Observation, parse_page
from agent.page_shape import DEFAULT_PAGE_LIMITS, PageShapeLimits, PageTooComplex
from agent.prediction import Prediction
from personas.memory_store import PersonaNotFound
from service.api.dependencies import ServicesDep
from service.api.schemas import NOT_FOUND, Page, PredictRequest

router = APIRouter(tags=["predict"])


def observe(page: Page | None, max_bytes: int, limits: PageShapeLimits = DEFAULT_PAGE_LIMITS) -> Observation:
    """The page as the twin reads it; raw HTML is simplified first. Pages over the byte, depth or element
    limits are refused (413) before they are parsed."""
    if page is None:
        return EMPTY_OBSERVATION
    try:
        html = page.simplified_html
        if page.html:
            if len(page.html.encode()) > max_bytes:
                raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, f"page.html is over {max_bytes} bytes")
            from agent.simplifier import simplify

            html = simplify(page.html, url=page.url, limits=limits)
        if html and len(html.encode()) > max_bytes:
            raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, f"page.simplified_html is over {max_bytes} bytes")
        return parse_page(html, url=page.url, limits=limits)
    except PageTooComplex as error:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, str(error)) from None


@router.post("/predict", response_model=Prediction, responses=NOT_FOUND)
async def predict(request: PredictRequest, http: Request, services: ServicesDep) -> Prediction:
    settings = services.settings
    brain = request.brain or settings.default_brain
    if brain not in services.graph.brains:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, f"unknown brain '{brain}'; available: {', '.join(services.graph.brains)}")
    observation = await asyncio.to_thread(observe, request.page, settings.max_page_bytes, settings.page_limits)
    try:
        persona = await asyncio.to_thread(services.store.get_persona, request.persona_id)
    except PersonaNotFound:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"persona '{request.persona_id}' not found") from None
    prediction = await services.graph.predict(
        persona=persona,
        observation=observation,
        history=request.history,
        brain=brain,
        model=request.model,
        options=request.options,
    )
    http.app.state.metrics.observe_prediction(prediction)
    return prediction
