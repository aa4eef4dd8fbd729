"""One twin browsing a live site: read the page, let the twin decide, act, wait, until it leaves, buys,
runs out of steps or meets a failure. Failures end the run and are recorded; nothing is raised.

    open start URL -> [ read page -> predict (history so far) -> act -> settle ] * max_steps

A purchase-type click on a checkout page (Continue, Place order) first fills the form it submits with the
simulation's TEST details (agent/simulation/checkout_form.py). The twin has bought when it clicks the control that
places the order, or when the page after an action is the shop's order confirmation.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import Browser, Page
from playwright.async_api import Error as PlaywrightError

from agent.actions import Action, ClickAction
from agent.allowed_hosts import HostAllowList
from agent.browser.actuator import perform
from agent.browser.chromium import VIEWPORT
from agent.browser.context_pool import TwinTabs
from agent.browser.element_boxes import with_element_boxes
from agent.browser.failures import FailureKind, StepFailure
from agent.browser.navigation import NavigationWatch, Timeouts, open_page, settle
from agent.browser.request_guard import RequestGuard
from agent.browser.snapshot import PageSnapshot, SnapshotTaker, selector_for
from agent.exports.decision_record import evidence_of, page_sha256
from agent.history import Step
from agent.page.observation import Observation
from agent.page.page_types import is_order_confirmation
from agent.predict_options import PredictOptions
from agent.predict_use_case import Predictor, predict_resolved
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.screenshots import ScreenshotRefused, read_screenshot
from agent.simulation.checkout_form import fill_checkout_form
from agent.simulation.config import SimulationConfig
from agent.simulation.funnel import is_purchase, stages_reached
from agent.simulation.seeds import step_seed
from agent.simulation.trace import (
    Box,
    Failure,
    MemoryUsed,
    ScreenSize,
    TaskProgress,
    TraceStep,
    TwinTrace,
)
from agent.tasks import judge
from personas.persona import Persona

BOX_TIMEOUT_MS = 2000  # scrolling the element into view for its screenshot mark


def timeouts_of(config: SimulationConfig) -> Timeouts:
    return Timeouts(config.navigation_timeout_ms, config.action_timeout_ms, config.idle_timeout_ms)


def takes_pictures(graph: Predictor, config: SimulationConfig, out_dir: Path | None) -> bool:
    """Whether a screenshot is taken at any step: for the report (--screenshots with an output directory) or for
    the brain. Such runs give every twin a fresh context (agent/browser/context_pool.py says why)."""
    return (config.screenshots and out_dir is not None) or brain_wants_screenshot(graph, config)


async def run_twin(
    tabs: TwinTabs | Browser,
    graph: Predictor,
    persona: Persona,
    config: SimulationConfig,
    out_dir: Path | None = None,
    allowed: HostAllowList | None = None,
) -> TwinTrace:
    """Browse as `persona` in a tab of its own (own cookies, own cart) and return the trace. `tabs` is a TwinTabs
    (agent/browser/context_pool.py), or a browser: then a fresh context for this twin alone. With `allowed`
    (a browser given), every request the browser makes (redirect hops too) must be on an allowed host; a TwinTabs
    carries its own list."""
    if not isinstance(tabs, TwinTabs):
        tabs = TwinTabs(tabs, reuse=False, allowed=allowed)
    async with tabs.tab() as (page, guard):
        return await _browse(page, guard, graph, persona, config, out_dir)


async def _browse(
    page: Page,
    guard: RequestGuard | None,
    graph: Predictor,
    persona: Persona,
    config: SimulationConfig,
    out_dir: Path | None,
) -> TwinTrace:
    trace = TwinTrace(persona_id=persona.id, start_url=config.url, seed=config.seed, outcome="max_steps")
    if config.task is not None:
        trace.task = TaskProgress(reached=False if config.task.success is not None else None)
    timeouts = timeouts_of(config)
    watch = NavigationWatch(page)
    reader = SnapshotTaker(timeouts.navigation_ms / 1000)
    history: list[Step] = []
    page_types: list[str] = []
    ordered = False
    step_number = 0
    for_the_brain = brain_wants_screenshot(graph, config)
    try:
        await open_page(page, config.url, watch, timeouts)
        while step_number < config.max_steps:
            step_number += 1
            snapshot = await reader.take(page)
            page_types.append(snapshot.observation.page_type)
            if step_number > 1:
                reached = _reached(trace, config, snapshot, step_number - 1)
                if _confirms_order(snapshot):
                    ordered, trace.outcome = True, "purchased"
                    break
                if reached:
                    trace.outcome = "task_reached"
                    break
            if snapshot.observation.empty:
                raise StepFailure("empty_page", f"nothing to click or type into on {snapshot.url}")
            image = await page.screenshot() if for_the_brain else None  # the page the model is shown
            seen = await with_element_boxes(page, snapshot) if for_the_brain else snapshot.observation
            step = await _decide(graph, persona, snapshot, seen, history, config, step_number, image)
            trace.steps.append(step)
            if config.screenshots and out_dir is not None:
                step.target_box = await target_box(page, snapshot, step.action, timeouts)
                step.screenshot, step.screenshot_size = await _screenshot(page, out_dir, persona.id, step_number)
            if step.action.type == "terminate":
                trace.outcome = "left"
                break
            if _goes_on_with_order(step, config) and config.checkout_details is not None:
                step.filled = await fill_checkout_form(
                    page, snapshot, step.action.name, config.checkout_details.values_for(persona)
                )
            watch.reset()
            await perform(page, snapshot, step.action, reader, timeouts, watch)
            await settle(page, timeouts, watch)
            step.result_url = page.url
            watch.raise_if_dead()
            history.append(Step(action=step.action, rationale=step.rationale, click_type=step.click_type, url=step.url))
            if isinstance(step.action, ClickAction) and is_purchase(step.action.name, step.click_type, step.page_type):
                trace.outcome = "purchased"
                break
        final = await reader.take(page)
        trace.final_url, trace.final_page_type = final.url, final.observation.page_type
        if trace.outcome not in ("left", "task_reached") and not ordered:
            page_types.append(final.observation.page_type)
            reached = _reached(trace, config, final, len(trace.steps))
            if trace.steps and trace.steps[-1].result_url and _confirms_order(final):
                ordered, trace.outcome = True, "purchased"
            elif reached and trace.outcome == "max_steps":
                trace.outcome = "task_reached"
    except StepFailure as failure:
        _fail(trace, failure.kind, _blocked_note(failure.message, guard), step_number, page)
    except PlaywrightError as error:
        _fail(trace, "browser_error", _blocked_note(str(error).splitlines()[0], guard), step_number, page)
    finally:
        watch.detach()
    trace.stages = stages_reached(page_types, trace.outcome == "purchased", ordered)
    trace.reason = _reason(trace)
    return trace


def _reached(trace: TwinTrace, config: SimulationConfig, snapshot: PageSnapshot, actions: int) -> bool:
    """Judge the page in front of the twin after an action against its task (agent.tasks.judge; the start page is
    where the twin begins, not something it reached); record the first time it is met."""
    if trace.task is None or trace.task.reached is None or trace.task.reached:
        return False
    assert config.task is not None and config.task.success is not None  # else trace.task.reached is None
    page_text = snapshot.text() if config.task.success.text is not None else None
    if not judge(config.task, snapshot.observation, snapshot.url, page_text).reached:
        return False
    trace.task = TaskProgress(reached=True, step=actions, url=snapshot.url)
    return True


def brain_wants_screenshot(graph: Predictor, config: SimulationConfig) -> bool:
    """Whether the twin's brain would show each step's screenshot to its model (the LLM brain with a model that
    takes images, or vision: always); a screenshot is then taken before every decision, saved or not."""
    wants = getattr(graph.brain(config.brain), "wants_screenshot", None)
    return bool(wants and wants(config.model, PredictOptions(vision=config.vision)))


def _confirms_order(snapshot: PageSnapshot) -> bool:
    return is_order_confirmation(snapshot.url, snapshot.title, snapshot.observation.text)


def _goes_on_with_order(step: TraceStep, config: SimulationConfig) -> bool:
    """A purchase-type click on a checkout page (Continue, Place order): the twin has decided to go on."""
    return (
        config.checkout_details is not None
        and isinstance(step.action, ClickAction)
        and step.click_type == "purchase"
        and step.page_type == "checkout"
    )


async def _decide(
    graph: Predictor,
    persona: Persona,
    snapshot: PageSnapshot,
    observation: Observation,
    history: list[Step],
    config: SimulationConfig,
    step_number: int,
    image: bytes | None = None,
) -> TraceStep:
    """`observation` is the snapshot's page, with its elements' boxes when the model sees the screenshot."""
    seed = step_seed(config.seed, persona.id, step_number)
    screenshot = None
    if image is not None:
        try:
            screenshot = await asyncio.to_thread(read_screenshot, image)
        except ScreenshotRefused:  # Chromium's own PNG: only a screenshot over the caps could land here
            screenshot = None
    given = PredictionInput(
        persona_id=persona.id,
        history=history,
        brain=config.brain,
        model=config.model,
        task=config.task,
        screenshot=screenshot,
        options=PredictOptions(mode="sample", seed=seed, vision=config.vision, grounding=config.grounding),
    )
    prediction = await predict_resolved(
        given, ResolvedInput(persona=persona, observation=observation, page_html=snapshot.simplified.html), graph
    )
    html = snapshot.simplified.html
    return TraceStep(
        step=step_number,
        url=snapshot.url,
        page_type=snapshot.observation.page_type,
        title=snapshot.title,
        candidates=len(snapshot.observation.candidates),
        action=prediction.action,
        click_type=prediction.click_type,
        rationale=prediction.rationale,
        memories=[MemoryUsed(id=m.id, kind=m.kind, text=m.text[:400], score=m.score) for m in prediction.memories],
        brain=prediction.brain,
        fallback_used=prediction.fallback_used,
        fallback_reason=prediction.fallback_reason,
        seed=seed,
        predict_ms=prediction.latency_ms,
        page_sha256=page_sha256(html),
        page_html=html,
        evidence=evidence_of(prediction.details, persona, history, snapshot.observation.title),
    )


async def _screenshot(page: Page, out_dir: Path, persona_id: str, step_number: int) -> tuple[str, ScreenSize]:
    relative = Path("screenshots") / persona_id / f"step_{step_number:03d}.png"
    (out_dir / relative).parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(out_dir / relative))
    size = page.viewport_size or VIEWPORT
    return relative.as_posix(), ScreenSize(width=size["width"], height=size["height"])


async def target_box(page: Page, snapshot: PageSnapshot, action: Action, timeouts: Timeouts) -> Box | None:
    """The box of the element the twin is about to act on, in the viewport the screenshot shows: scrolled into view
    first (as a click or typing would), a drop-down's option marked by its drop-down. None when it cannot be found."""
    if action.type == "terminate" or (marker := snapshot.marker(action.name)) is None:
        return None
    locator = page.locator(selector_for(marker))
    try:
        if await locator.count() != 1:
            return None
        if await locator.evaluate("el => el.tagName") == "OPTION":
            locator = locator.locator("xpath=ancestor::select[1]")
        await locator.scroll_into_view_if_needed(timeout=min(timeouts.action_ms, BOX_TIMEOUT_MS))
        box = await locator.bounding_box()
    except PlaywrightError:  # detached or never visible: the step is still recorded, without a mark
        return None
    return Box(**box) if box else None


def _fail(trace: TwinTrace, kind: FailureKind, message: str, step_number: int, page: Page) -> None:
    trace.outcome = "error"
    trace.failure = Failure(kind=kind, message=message, step=step_number)
    try:
        trace.final_url = page.url
    except PlaywrightError:  # pragma: no cover - a crashed page
        trace.final_url = None
    if trace.steps and trace.steps[-1].step == step_number:
        trace.final_page_type = trace.steps[-1].page_type


def _blocked_note(message: str, guard: RequestGuard | None) -> str:
    """Say which request the allow-list refused: ERR_BLOCKED_BY_CLIENT alone does not tell the user why."""
    if guard is None or not guard.blocked:
        return message
    return f"{message} (refused {guard.blocked[-1]}: not on an allowed host, TWINSIM_ALLOWED_HOSTS)"


def _reason(trace: TwinTrace) -> str:
    if trace.failure is not None:
        return f"{trace.failure.kind}: {trace.failure.message}"
    last = trace.steps[-1].rationale if trace.steps else ""
    if trace.outcome == "max_steps":
        return f"step limit reached; last thought: {last}"
    if trace.outcome == "task_reached":
        assert trace.task is not None  # reached: its progress says where
        return f"reached the task after {trace.task.step} action(s), at {trace.task.url}"
    if "order" in trace.stages:
        return f"placed an order (the shop confirmed it at {trace.final_url}); last thought: {last}"
    return last
