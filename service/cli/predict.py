"""`twinsim predict --persona ID [--page FILE]`: one persona's next action on one page, the CLI's `POST /predict`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import TypeAdapter, ValidationError
from rich.console import Console

from service.cli.failure import fail
from service.cli.flags import (
    BRAIN_HELP,
    GROUNDING_HELP,
    VISION_HELP,
    brain_flag,
    grounding_flag,
    prompt_style_flag,
    task_from_flags,
    vision_flag,
)
from service.settings import Settings

console = Console(soft_wrap=True)


def _screenshot_file(path: Path, settings: Settings):
    """--screenshot checked (decoded, PNG/JPEG/WebP, within TWINSIM_MAX_SCREENSHOT_*) before anything loads."""
    from agent.screenshots import ScreenshotRefused, read_screenshot

    try:
        size = path.stat().st_size
        if size > settings.max_screenshot_bytes:
            fail(
                f"--screenshot {path}: {size:,} bytes, over the limit of {settings.max_screenshot_bytes:,} "
                "(TWINSIM_MAX_SCREENSHOT_BYTES)"
            )
        return read_screenshot(path.read_bytes(), settings.screenshot_limits)
    except OSError as error:
        fail(f"--screenshot {path}: {error.strerror or error}")
    except ScreenshotRefused as error:
        fail(f"--screenshot {path}: {error}")


def _read_history(path: Path | None):
    from agent.history import Step

    if path is None:
        return []
    try:
        data = json.loads(path.read_text())
        return TypeAdapter(list[Step]).validate_python(data)
    except (OSError, json.JSONDecodeError) as error:
        fail(f"{path}: {error}")
    except ValidationError as error:
        fail(f"{path}: invalid history: {error}")


def _print_prediction(prediction, persona_id: str) -> None:
    console.print(f"[bold]twin {persona_id}[/bold] ({prediction.brain} brain, {prediction.latency_ms:.0f} ms)")
    if prediction.model and not prediction.fallback_used:
        console.print(
            f"[dim]model {prediction.model}: {prediction.usage.prompt_tokens} prompt + "
            f"{prediction.usage.completion_tokens} answer tokens; "
            f"{prediction.details.get('answer_format', 'free text, parsed')}[/dim]",
            highlight=False,
        )
    if prediction.fallback_used:
        console.print(f"[yellow]fallback:[/yellow] {prediction.fallback_reason}")
    console.print(f"[cyan]rationale:[/cyan] {prediction.rationale}")
    console.print(f"[green]action:[/green] {prediction.action.model_dump_json()}  click type: {prediction.click_type}")
    for memory in prediction.memories[:3]:
        console.print(f"  [dim]memory ({memory.kind}, {memory.score}):[/dim] {memory.text[:140]}")


def predict(
    persona: Annotated[str, typer.Option("--persona", help="Persona id.")],
    page: Annotated[
        Path | None, typer.Option("--page", help="A simplified (OPeRA) or raw HTML page; omit for page-free.")
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="The page's URL, when known.")] = None,
    history: Annotated[
        Path | None, typer.Option("--history", help="JSON list of steps: [{action, rationale?}, ...].")
    ] = None,
    brain: Annotated[str, typer.Option("--brain", callback=brain_flag, help=BRAIN_HELP)] = "embedded",
    model: Annotated[str | None, typer.Option("--model")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full prediction as JSON.")] = False,
    task: Annotated[str | None, typer.Option("--task", help="What the twin came to do, in words.")] = None,
    screenshot: Annotated[
        Path | None,
        typer.Option(
            "--screenshot",
            help="--brain llm: the page as a PNG, JPEG or WebP file, shown to a model that takes images "
            "(see --vision).",
        ),
    ] = None,
    vision: Annotated[str | None, typer.Option("--vision", callback=vision_flag, help=VISION_HELP)] = None,
    grounding: Annotated[str | None, typer.Option("--grounding", callback=grounding_flag, help=GROUNDING_HELP)] = None,
    prompt_style: Annotated[
        str | None,
        typer.Option(
            "--prompt-style",
            callback=prompt_style_flag,
            help="--brain llm: twinsim (default), opera-protocol or opera-protocol-rationale (the OPeRA paper's "
            "protocol).",
        ),
    ] = None,
) -> None:
    """Predict a persona's next action on a page."""
    from agent.page.read_page import PageRefused
    from agent.predict_options import PredictOptions
    from agent.predict_use_case import PredictionServices, page_reader
    from agent.predict_use_case import predict as predict_next
    from agent.prediction_input import Page, PredictionInput
    from personas.memory_store import PersonaNotFound
    from personas.persona import validate_persona_id
    from service.container import build_services

    given_task = task_from_flags(task)
    settings = Settings()
    shot = _screenshot_file(screenshot, settings) if screenshot is not None else None
    html = None
    if page is not None:
        try:
            html = page.read_text(errors="replace")
        except OSError as error:
            fail(f"{page}: {error}")
    steps = _read_history(history)
    try:
        validate_persona_id(persona)
    except ValueError as error:
        fail(str(error))
    given = PredictionInput(
        persona_id=persona,
        page=None if html is None else Page(html=html, url=url),
        history=steps,
        brain=brain,
        model=model,
        task=given_task,
        screenshot=shot,
        options=PredictOptions(vision=vision, grounding=grounding, prompt_style=prompt_style),
    )

    # load the embedder first, so the printed latency is the prediction's
    services = build_services(Settings(), warm=True)
    # --page may hold raw or simplified HTML: the reader tells them apart, and a refusal names the file
    read = page_reader(settings.max_page_bytes, settings.page_limits, label=str(page), detect_form=True)
    use_case = PredictionServices(
        graph=services.graph, personas=services.store, read=read, default_brain=settings.default_brain
    )
    try:
        prediction = asyncio.run(predict_next(given, use_case))
    except PageRefused as error:
        fail(str(error))
    except PersonaNotFound:
        fail(f"persona '{persona}' not found; import it with `twinsim personas import FILE`")
    except ValueError as error:  # an id this store refuses (a tenant's separator in it, too long)
        fail(str(error))
    if as_json:
        print(prediction.model_dump_json(indent=2))
    else:
        _print_prediction(prediction, persona)
