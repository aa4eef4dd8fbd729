"""Live variants of an experiment: each twin instance browses the variant's `live_url` in headless Chromium
through the same twin session as a live simulation (agent.simulation), and its trace becomes one Sample.

The twin's browsing seed is its instance seed (folded to the simulation's 32-bit range), so a twin instance
draws the same way on every variant (the comparison stays paired) and a re-run on the same site repeats.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from agent.allowed_hosts import HostAllowList
from agent.brains.base import Brain
from agent.browser.chromium import ChromiumMissing, chromium_path
from agent.experiments.pages import fetch
from agent.experiments.samples import Sample, to_sample
from agent.experiments.spec import ExperimentSpec, SpecError, VariantSpec
from agent.experiments.visibility import Sight, sight_of
from agent.graph import TwinGraph
from agent.prediction import Prediction
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.simulation.config import SimulationConfig
from agent.simulation.trace import TwinTrace
from agent.usage import Usage
from personas.persona import Persona

if TYPE_CHECKING:  # Playwright is imported where a browser starts (the browser extra)
    from playwright.async_api import Browser

LIVE_CONCURRENCY = 2  # browser contexts at once: each is a renderer process on a small machine
SEED_RANGE = 2**32  # SimulationConfig.seed


def check_live_variants(spec: ExperimentSpec, allowed: HostAllowList | None = None) -> None:
    """Before any twin runs: Chromium and Playwright are there, and every live_url answers. Raises SpecError."""
    if not spec.live_variants:
        return
    names = ", ".join(f"'{n}'" for n in spec.live_variants)
    try:
        chromium_path()
    except ChromiumMissing as error:
        raise SpecError(f"live variant(s) {names} need Chromium: {error}") from None
    try:
        import playwright.async_api  # noqa: F401 - imported only to learn whether Playwright is installed
    except ImportError:
        raise SpecError(f"live variant(s) {names} need Playwright: install twinsim with its browser extra") from None
    for name, variant in spec.live_variants.items():
        assert variant.live_url is not None  # what makes it a live variant
        try:
            fetch(variant.live_url, allowed=allowed)
        except SpecError as error:
            raise SpecError(f"variant '{name}' live_url: {error}") from None


def browsing_seed(instance_seed: int) -> int:
    return instance_seed % SEED_RANGE


class UsageMeter:
    """The twin graph, counting what its predictions cost (the browsing trace does not keep usage) and keeping
    what the brain was shown at each (agent/experiments/visibility.py: could the twins see the difference)."""

    def __init__(self, graph: TwinGraph, brain: str) -> None:
        self.graph = graph
        self.brain_name = brain
        self.usage = Usage()
        self.sights: list[Sight] = []

    def brain(self, name: str) -> Brain:
        """The graph's brain of that name (a twin's session asks whether it wants each step's screenshot)."""
        return self.graph.brain(name)

    async def predict(self, given: PredictionInput, resolved: ResolvedInput) -> Prediction:
        self.sights.append(sight_of(resolved.observation, self.brain_name))
        prediction = await self.graph.predict(given, resolved)
        self.usage = self.usage.add(prediction.usage)
        return prediction


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """One headless browser for all the live units of a run; each twin gets its own context (cookies, cart)."""
    from playwright.async_api import async_playwright

    from agent.browser.chromium import launch

    async with async_playwright() as playwright:
        browser = await launch(playwright)
        try:
            yield browser
        finally:
            await browser.close()


async def browse(
    browser: Browser,
    graph: TwinGraph,
    persona: Persona,
    variant: VariantSpec,
    spec: ExperimentSpec,
    instance_seed: int,
    allowed: HostAllowList | None = None,
) -> tuple[TwinTrace, Usage, list[Sight]]:
    """One twin instance on one live variant: its trace, what its predictions cost and what it was shown."""
    from agent.simulation.twin_session import run_twin

    config = SimulationConfig(
        url=variant.live_url,
        persona_ids=[persona.id],
        max_steps=variant.max_steps,
        brain=spec.brain,
        model=spec.model,
        seed=browsing_seed(instance_seed),
        concurrency=1,
        task=spec.task,
    )
    meter = UsageMeter(graph, str(spec.brain))
    trace = await run_twin(browser, meter, persona, config, allowed=allowed)
    return trace, meter.usage, meter.sights


def trace_to_sample(
    trace: TwinTrace, *, variant: str, instance: int, targets: list[str], segments: dict[str, str]
) -> Sample:
    if not trace.steps:
        raise RuntimeError(f"twin {trace.persona_id} could not start on {trace.start_url}: {trace.reason}")
    return to_sample(
        trace.steps,
        variant=variant,
        persona_id=trace.persona_id,
        instance=instance,
        targets=targets,
        segments=segments,
        purchase=trace.outcome == "purchased",
        leave=trace.outcome == "left",
        task_reached=trace.task.reached if trace.task else None,
        task_step=trace.task.step if trace.task else None,
        decisions=[step.decision() for step in trace.steps],
    )
