"""A live simulation: several twins browse the same site, each in a browser tab of its own (a context handed on
from twin to twin, wiped between them, unless pictures are taken: agent/browser/context_pool.py), a few at a
time; their traces and the funnel are the result (and, with an output directory, files on disk).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from playwright.async_api import Browser, async_playwright
from pydantic import BaseModel, Field

from agent.allowed_hosts import HostAllowList
from agent.browser.chromium import launch
from agent.browser.context_pool import TwinTabs
from agent.simulation.config import SimulationConfig
from agent.simulation.funnel import Funnel, summarise
from agent.simulation.trace import TwinTrace
from agent.simulation.twin_session import run_twin, takes_pictures
from agent.tasks import task_success
from personas.persona import Persona
from personas.persona_card import persona_card

if TYPE_CHECKING:
    from agent.browser.kept_browser import KeptBrowsers
    from agent.graph import TwinGraph


class SimulationResult(BaseModel):
    config: SimulationConfig
    started_at: str
    finished_at: str
    seconds: float
    traces: list[TwinTrace]
    funnel: Funnel
    task: dict | None = Field(
        None,
        description="With a task: who reached it, per persona and overall "
        "(agent.tasks.task_success), and the median step at which they did.",
    )
    personas: dict[str, dict] = Field(
        default_factory=dict,
        description="Persona id -> its card (personas.persona_card): who each twin is, for the report and readers.",
    )
    test_details: dict | None = Field(
        None,
        description="Checkout form fields the twins filled with made-up TEST "
        "details (never the person's data) and required ones left empty; None when "
        "no twin filled a form (agent/simulation/checkout_form.py).",
    )
    citation: str = Field("Twins' behaviour model calibrated on OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0.")


class TwinsElsewhere(Protocol):
    """Runs the twins' sessions outside this process (agent/executors/ray_twins.py: RayTwins, one Ray task each)."""

    def run_twins(
        self,
        config: SimulationConfig,
        personas: list[Persona],
        graph: TwinGraph,
        out_dir: Path | None,
        on_trace: Callable[[TwinTrace], None] | None,
        allowed: HostAllowList | None,
    ) -> list[TwinTrace]: ...


async def run_simulation(
    config: SimulationConfig,
    personas: list[Persona],
    graph: TwinGraph,
    out_dir: Path | None = None,
    on_trace: Callable[[TwinTrace], None] | None = None,
    executor: TwinsElsewhere | None = None,
    allowed: HostAllowList | None = None,
    browser: Browser | None = None,
) -> SimulationResult:
    """Run every persona's twin on config.url; traces come back in the order of `personas`. `executor`: where the
    sessions run instead of this process (RayTwins: each a Ray task); None: here, in `browser` (launched with
    `pictures=takes_pictures(...)`, left open: agent/browser/kept_browser.py) or in one started for the run.
    With `allowed`, the browser requests only allowed hosts (agent/browser/request_guard.py)."""
    if [p.id for p in personas] != config.persona_ids:
        raise ValueError("personas must match config.persona_ids, in order")
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    started, clock = datetime.now(UTC), time.perf_counter()
    if executor is not None:
        traces = await asyncio.to_thread(executor.run_twins, config, personas, graph, out_dir, on_trace, allowed)
    else:
        traces = await _run_here(config, personas, graph, out_dir, on_trace, allowed, browser)
    return SimulationResult(
        config=config,
        started_at=started.isoformat(timespec="seconds"),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        seconds=round(time.perf_counter() - clock, 2),
        traces=traces,
        funnel=summarise(traces),
        task=simulation_task_success(config, traces),
        personas={p.id: persona_card(p) for p in personas},
        test_details=checkout_test_details(config, traces),
    )


def run_on_kept_browser(
    browsers: KeptBrowsers,
    config: SimulationConfig,
    personas: list[Persona],
    graph: TwinGraph,
    out_dir: Path | None = None,
    on_trace: Callable[[TwinTrace], None] | None = None,
    allowed: HostAllowList | None = None,
) -> SimulationResult:
    """run_simulation here, on the browser `browsers` keeps (one launched as this run needs it, or the one started
    ahead for it: agent/browser/kept_browser.py) and on its event loop; waits for the result."""
    return browsers.run(
        lambda browser: run_simulation(config, personas, graph, out_dir, on_trace, None, allowed, browser),
        pictures=takes_pictures(graph, config, out_dir),
        allowed=allowed,
    )


async def _run_here(
    config: SimulationConfig,
    personas: list[Persona],
    graph: TwinGraph,
    out_dir: Path | None,
    on_trace: Callable[[TwinTrace], None] | None,
    allowed: HostAllowList | None,
    browser: Browser | None,
) -> list[TwinTrace]:
    pictures = takes_pictures(graph, config, out_dir)
    if browser is not None:
        return await _browse(browser, pictures, config, personas, graph, out_dir, on_trace, allowed)
    async with async_playwright() as playwright:
        started = await launch(playwright, pictures=pictures)
        try:
            return await _browse(started, pictures, config, personas, graph, out_dir, on_trace, allowed)
        finally:
            await started.close()


async def _browse(
    browser: Browser,
    pictures: bool,
    config: SimulationConfig,
    personas: list[Persona],
    graph: TwinGraph,
    out_dir: Path | None,
    on_trace: Callable[[TwinTrace], None] | None,
    allowed: HostAllowList | None,
) -> list[TwinTrace]:
    gate = asyncio.Semaphore(config.concurrency)
    tabs = TwinTabs(browser, reuse=not pictures, allowed=allowed)
    try:

        async def one(persona: Persona) -> TwinTrace:
            async with gate:
                trace = await run_twin(tabs, graph, persona, config, out_dir)
            if on_trace is not None:
                on_trace(trace)
            return trace

        return list(await asyncio.gather(*(one(p) for p in personas)))
    finally:
        await tabs.close()


def simulation_task_success(config: SimulationConfig, traces: list[TwinTrace]) -> dict | None:
    """Task success per persona and overall; None when the twins had no task."""
    if config.task is None:
        return None
    summary = task_success(config.task.goal, {t.persona_id: [t.task.reached if t.task else None] for t in traces})
    steps = sorted(t.task.step for t in traces if t.task and t.task.reached and t.task.step is not None)
    for trace in traces:
        summary["per_persona"][trace.persona_id]["step"] = trace.task.step if trace.task else None
    summary["median_step"] = steps[len(steps) // 2] if steps else None
    summary["success"] = config.task.success.model_dump(exclude_none=True) if config.task.success else None
    return summary


def checkout_test_details(config: SimulationConfig, traces: list[TwinTrace]) -> dict | None:
    """Which checkout fields were filled with TEST details, by whom and where, so nobody mistakes them for a
    person's data; None when no twin filled a form."""
    filled: list[dict] = []
    left: list[dict] = []
    for trace in traces:
        for step in trace.steps:
            for field in step.filled:
                row = {
                    "persona_id": trace.persona_id,
                    "step": step.step,
                    "url": step.url,
                    **field.model_dump(exclude={"test_detail"}),
                }
                (filled if field.value is not None else left).append(row)
    if not filled and not left:
        return None
    kinds: dict[str, int] = {}
    for row in filled:
        kinds[row["kind"] or "other"] = kinds.get(row["kind"] or "other", 0) + 1
    return {
        "note": "These values are made-up TEST details the simulation entered into checkout forms "
        "(SimulationConfig.checkout_details), not the persons' own data.",
        "details": config.checkout_details.model_dump() if config.checkout_details else None,
        "fields_by_kind": kinds,
        "filled": filled,
        "left_empty": left,
    }
