"""Predict one next action: the use case the API's POST /predict, `twinsim predict` and evaluation all call,
and the one path from a `PredictionInput` to a `Prediction` for the callers that read their pages themselves
(Mind2Web evaluation, experiments run through the graph, live browsing): `predict_resolved`.

Why here: looking the person up, reading the page within the service's limits and running the graph is the
agent's work, not a transport's; the route and the CLI only translate their input into a `PredictionInput` (and
a screenshot they were sent into a checked `Screenshot`) and the errors below into a 404 / 413 or a message.
Raises `personas.memory_store.PersonaNotFound` for an unknown persona and `agent.page.read_page.PageRefused` for
a page over the limits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from agent.brains.base import Brain
from agent.graph import TwinGraph
from agent.page.read_page import DEFAULT_MAX_PAGE_BYTES, ReadPage, read_page
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits
from agent.prediction import Prediction
from agent.prediction_input import DEFAULT_BRAIN, Page, PredictionInput, ResolvedInput
from personas.persona import Persona


class Predictor(Protocol):
    """What turns an input, its persona and page in hand, into a prediction: the TwinGraph, or a wrapper of it
    that also counts (agent/experiments/live.py:UsageMeter)."""

    def brain(self, name: str) -> Brain: ...

    async def predict(self, given: PredictionInput, resolved: ResolvedInput) -> Prediction: ...


class PersonaLookup(Protocol):
    """Where personas are looked up by id (the memory store; a dict-backed one in evaluation)."""

    def get_persona(self, persona_id: str) -> Persona: ...


def page_reader(
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
    *,
    label: str | None = None,
    detect_form: bool = False,
) -> Callable[[Page], ReadPage]:
    """Reads a page as sent: raw HTML is simplified, simplified HTML parsed, both within the limits. With
    `detect_form` (a file given on the command line, which may be either), `html` that already looks simplified
    is parsed as it is. `label` names the page in a refusal (default: the API's field)."""

    def read(page: Page) -> ReadPage:
        raw = page.html is not None
        return read_page(
            page.html if page.html is not None else page.simplified_html or "",
            url=page.url,
            simplified=None if raw and detect_form else not raw,
            label=label or ("page.html" if raw else "page.simplified_html"),
            max_bytes=max_bytes,
            limits=limits,
        )

    return read


@dataclass(frozen=True)
class PredictionServices:
    """What a prediction needs besides its input: the graph, where personas are, how pages are read and the
    brain used when the input names none."""

    graph: TwinGraph
    personas: PersonaLookup
    read: Callable[[Page], ReadPage] = field(default_factory=page_reader)
    default_brain: str = DEFAULT_BRAIN


def resolve(given: PredictionInput, services: PredictionServices) -> ResolvedInput:
    """The persona and page `given` names, looked up and read (blocking: run it off the event loop)."""
    page = services.read(given.page) if given.page is not None else None
    persona = services.personas.get_persona(given.persona_id) if given.persona_id is not None else None
    if page is None:
        return ResolvedInput(persona=persona)
    return ResolvedInput(persona=persona, observation=page.observation, page_html=page.simplified_html)


async def predict(given: PredictionInput, services: PredictionServices) -> Prediction:
    """The next action `given`'s person takes on its page, and why."""
    brain = given.brain or services.default_brain
    if given.brain is None:
        given = given.model_copy(update={"brain": brain})
    services.graph.brain(brain)  # an unknown brain is refused before the page is read
    resolved = await asyncio.to_thread(resolve, given, services)
    return await predict_resolved(given, resolved, services.graph)


async def predict_resolved(given: PredictionInput, resolved: ResolvedInput, predictor: Predictor) -> Prediction:
    """The next action for an input whose persona and page are already looked up and read: what `predict` does
    after resolving, and what callers that read pages in bulk or in a browser call directly, so every
    prediction takes this one path into the graph."""
    return await predictor.predict(given, resolved)
