"""`twinsim simulate --url URL --personas ...`: twins browse a live site in headless Chromium (service/jobs/
simulations.py runs them); this file checks the flags and the start page before any store or browser opens, then
starts the browser while it loads the twins' graph and store."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from service.cli.failure import fail, validation_message
from service.cli.flags import (
    BRAIN_HELP,
    GROUNDING_HELP,
    VISION_HELP,
    brain_flag,
    grounding_flag,
    task_from_flags,
    vision_flag,
)
from service.settings import Settings

if TYPE_CHECKING:
    from agent.browser.kept_browser import KeptBrowsers

console = Console(soft_wrap=True)


def _check_ray_head() -> None:
    """With TWINSIM_EXECUTOR=ray, a head that does not answer is a message in seconds, before the store opens."""
    settings = Settings()
    if settings.executor == "ray" and settings.ray_address:
        from agent.executors.ray_units import RayUnavailable, check_reachable

        try:
            check_reachable(settings.ray_address)
        except RayUnavailable as error:
            fail(str(error))


def simulate(
    *,
    url: Annotated[
        str, typer.Option("--url", help="Where every twin starts, e.g. http://127.0.0.1:8100/ (twinsim shop).")
    ],
    personas: Annotated[str, typer.Option("--personas", help="Comma-separated persona ids.")] = "",
    all_personas: Annotated[bool, typer.Option("--all", help="Every stored persona.")] = False,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, max=100, help="Actions per twin at most.")] = 10,
    out: Annotated[
        Path, typer.Option("--out", help="Directory for report.json, report.html, traces/ and screenshots/.")
    ],
    brain: Annotated[str, typer.Option("--brain", callback=brain_flag, help=BRAIN_HELP)] = "embedded",
    model: Annotated[str | None, typer.Option("--model", help="litellm model for --brain llm.")] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Same seed, same site: the same traces.")] = 0,
    screenshots: Annotated[bool, typer.Option("--screenshots", help="Save a screenshot before every action.")] = False,
    vision: Annotated[str | None, typer.Option("--vision", callback=vision_flag, help=VISION_HELP)] = None,
    grounding: Annotated[str | None, typer.Option("--grounding", callback=grounding_flag, help=GROUNDING_HELP)] = None,
    concurrency: Annotated[
        int | None,
        typer.Option("--concurrency", min=1, max=16, help="Twins browsing at once (default: one more than the cores)."),
    ] = None,
    task: Annotated[str | None, typer.Option("--task", help="What every twin came to do, in words.")] = None,
    task_url: Annotated[
        str | None,
        typer.Option(
            "--task-url",
            help="Reached when the address contains this ('*' = any run of characters, then the whole address must "
            "match).",
        ),
    ] = None,
    task_element: Annotated[
        str | None,
        typer.Option(
            "--task-element", help="Reached when an element with this name (or showing this text) is on the page."
        ),
    ] = None,
    task_text: Annotated[str | None, typer.Option("--task-text", help="Reached when the page shows this text.")] = None,
    fill_checkout: Annotated[
        bool,
        typer.Option(
            "--fill-checkout/--no-fill-checkout",
            help="Twins that go on with "
            "their order fill a checkout form's required fields with made-up TEST details "
            "(listed in report.json's test_details); off: they stop at such a form.",
        ),
    ] = True,
) -> None:
    """Let twins browse a live site in headless Chromium; write their traces and the funnel."""
    from agent.simulation.config import SimulationConfig
    from service.jobs.simulation_requests import SimulationRequestError, StartPageFailed, check_start_page

    given_task = task_from_flags(task, task_url, task_element, task_text)
    ids = [p.strip() for p in personas.split(",") if p.strip()]
    if not ids and not all_personas:
        fail("name personas with --personas ID,... or use --all")
    settings = Settings()
    try:  # the URL and limits first, then one request to the URL: no store, no browser for a run that cannot work
        check_start_page(
            SimulationConfig(url=url, persona_ids=ids or ["-"], max_steps=max_steps, seed=seed),
            settings.host_allow_list,
        )
    except ValidationError as error:
        fail(validation_message(error))
    except StartPageFailed as error:
        fail(str(error))
    _check_ray_head()
    with _browser_started_early(settings, pictures=screenshots or brain != "embedded") as browsers:
        from service.container import build_services
        from service.jobs.simulations import check_and_load, persona_ids_for, run_blocking

        services = build_services(settings, warm=False)  # warmed while the browser starts (run_blocking)
        try:
            config = SimulationConfig(
                url=url,
                persona_ids=persona_ids_for(services, ids, all_personas),
                max_steps=max_steps,
                brain=brain,
                model=model,
                seed=seed,
                screenshots=screenshots,
                **({"concurrency": concurrency} if concurrency else {}),
                task=given_task,
                vision=vision,
                grounding=grounding,
                **({} if fill_checkout else {"checkout_details": None}),
            )
            loaded = check_and_load(services, config)
        except ValidationError as error:
            fail(validation_message(error))
        except SimulationRequestError as error:
            fail(str(error))
        console.print(f"{len(loaded)} twin(s) browsing {url} (seed {seed}, at most {max_steps} steps)")
        try:
            result = run_blocking(
                services,
                config,
                loaded,
                out,
                on_trace=lambda t: console.print(
                    f"  {t.persona_id}: {t.outcome} after {len(t.steps)} "
                    f"steps, reached {' > '.join(t.stages) or 'no stage'}"
                ),
                browsers=browsers,
            )
        except StartPageFailed as error:  # the site went away after the check: no report, since no twin saw it
            fail(f"{error}; no report written")
        except SimulationRequestError as error:  # TWINSIM_EXECUTOR=ray and the cluster cannot be reached
            fail(str(error))
    for row in result.funnel.reached:
        console.print(f"{row.stage:>10}: {row.twins} of {result.funnel.twins}")
    if result.task is not None and result.task["judged"]:
        console.print(
            f"{'task':>10}: reached by {result.task['reached']} of {result.task['judged']} "
            f"(median step {result.task['median_step']})"
        )
    console.print(f"report: {out / 'report.html'}  ({out / 'report.json'}, traces in {out / 'traces'})")


@contextlib.contextmanager
def _browser_started_early(settings: Settings, *, pictures: bool) -> Iterator[KeptBrowsers | None]:
    """Playwright's driver and Chromium, started on a thread of their own while this command loads the twins'
    graph and store, and closed when it is done (agent/browser/kept_browser.py). `pictures`: what the run most
    likely launches with (a screenshot per step, or a brain that may look at them); a wrong guess costs a second
    launch, never a wrong browser. None on Ray: the sessions run on the workers' own browsers."""
    if settings.executor == "ray":
        yield None
        return
    from agent.browser.kept_browser import KeptBrowsers

    browsers = KeptBrowsers()
    browsers.start(pictures=pictures, allowed=settings.host_allow_list)
    try:
        yield browsers
    finally:
        browsers.close()
