"""The `twinsim` command: serve the API, import personas, predict, run the demo, calibrate, evaluate, compare runs."""

from __future__ import annotations

import asyncio
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from pydantic import TypeAdapter, ValidationError
from rich.console import Console

from agent.brains.names import BRAIN_NAMES, known_brain
from agent.options import GROUNDING_STRATEGIES, PROMPT_STYLES, VISION_POLICIES
from service.cli.experiment import experiment_app
from service.cli.failure import fail
from service.cli.interview import interview_command
from service.cli.llm_serve import llm_app
from service.cli.report import report_app
from service.settings import Settings

app = typer.Typer(
    help="twinsim: persona-conditioned digital twins of online shoppers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
personas_app = typer.Typer(help="Import and inspect personas.", no_args_is_help=True)
app.add_typer(personas_app, name="personas")
app.add_typer(experiment_app, name="experiment")
app.add_typer(report_app, name="report")
app.add_typer(llm_app, name="llm")
app.command("interview")(interview_command)
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        console.print(f"twinsim {version('twinsim')}")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """twinsim: persona-conditioned digital twins of online shoppers."""


def _brain(value: str) -> str:
    """--brain: one of the registered names, refused with the same sentence as the API's."""
    try:
        known_brain(value)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    return value


BRAIN_HELP = f"The brain that decides: {', '.join(BRAIN_NAMES)}."


def _one_of(choices: tuple[str, ...], flag: str):
    """A callback accepting one of `choices`, written with - or _ (opera-protocol = opera_protocol)."""

    def check(value: str | None) -> str | None:
        if value is None:
            return None
        folded = value.strip().lower().replace("-", "_")
        if folded not in choices:
            raise typer.BadParameter(
                f"{flag} {value!r}: choose one of {', '.join(c.replace('_', '-') for c in choices)}"
            )
        return folded

    return check


_vision = _one_of(VISION_POLICIES, "--vision")
_grounding = _one_of(GROUNDING_STRATEGIES, "--grounding")
_prompt_style = _one_of(PROMPT_STYLES, "--prompt-style")
VISION_HELP = (
    "--brain llm: show the model the page's screenshot: auto (when litellm says the model takes images), "
    "always, never (default: TWINSIM_LLM_VISION, auto)."
)
GROUNDING_HELP = (
    "--brain llm: how the model names the element: names, textual-choices, set-of-marks, both (SeeAct, "
    "arXiv 2401.01614; default: TWINSIM_LLM_GROUNDING, names)."
)


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


def _services(warm: bool = False):
    from service.container import build_services

    return build_services(Settings(), warm=warm)


@app.command()
def serve(host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Run the HTTP API (uvicorn). On SIGTERM, in-flight requests get TWINSIM_SHUTDOWN_GRACE_S to finish."""
    import uvicorn

    from service.api.request_log import uvicorn_log_config

    settings = Settings()
    if settings.chroma_url is None:  # the embedded store: this process must be its only one
        if workers > 1:
            fail(
                "several worker processes cannot share the embedded store; run a Chroma server "
                "(`chroma run --path DIR --port 8001`) and set TWINSIM_CHROMA_URL=http://127.0.0.1:8001"
            )
        from personas.store_lock import hold_store_directory

        hold_store_directory(settings.chroma_path)
    uvicorn.run(
        "service.api.main:app",
        host=host,
        port=port,
        workers=workers,
        log_level=settings.log_level,
        timeout_graceful_shutdown=settings.shutdown_grace_s,
        log_config=uvicorn_log_config(settings.log_level),
        access_log=False,
    )  # the app writes one JSON line per request itself


@personas_app.command("import")
def import_personas(
    files: Annotated[
        list[Path], typer.Argument(help="OPeRA user table (csv/jsonl/parquet), personas.jsonl, or native JSON/YAML.")
    ],
    replace: Annotated[
        bool, typer.Option("--replace", help="Replace a stored persona whole instead of merging.")
    ] = False,
) -> None:
    """Import personas; a stored id is merged (the richer record's values kept, missing ones added), or replaced \
with --replace."""  # one line: Typer shows it as the command's help
    from personas.sources import PersonaSourceError, load_personas
    from service.cli.persona_import import combine_loaded, import_personas
    from service.tenant_store import open_tenant_store, store_description

    loaded = []
    for path in files:
        if not path.exists():
            fail(f"{path}: no such file")
        try:
            loaded.extend((path.name, persona) for persona in load_personas(path))
        except (PersonaSourceError, ValidationError, ValueError) as error:
            fail(f"{path}: {error}")
    settings = Settings()
    store = open_tenant_store(settings)  # the store alone: no brains, no LLM client to import
    records = list(combine_loaded(loaded).values())
    with _progress() as progress:
        task = progress.add_task("importing", total=len(records))
        for outcome in import_personas(store, records, replace=replace):
            console.print(outcome.line())
            progress.advance(task)
    console.print(f"{len(store.persona_ids())} persona(s) in {store_description(settings)}")


def _progress():
    """A progress bar on stderr when it is a terminal (none in pipes, logs and tests, as pip and cargo do); the
    outcome lines stay on stdout, printed above the bar when stdout is the same terminal."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
        redirect_stdout=console.is_terminal,
        redirect_stderr=False,
    )


@personas_app.command("list")
def list_personas() -> None:
    """List stored personas."""
    from service.tenant_store import open_tenant_store

    for summary in open_tenant_store(Settings()).list_personas():
        console.print(f"{summary.id}\t{summary.source}\t{summary.memories} memories\t{summary.updated_at}")


def _task(goal: str | None, url: str | None = None, element: str | None = None, text: str | None = None):
    """--task and its success criteria as one Task, refused with the schema's own reason (agent/tasks.py)."""
    from agent.tasks import Task

    criteria = {k: v for k, v in (("url", url), ("element", element), ("text", text)) if v is not None}
    if goal is None:
        if criteria:
            fail("--task-url, --task-element and --task-text need --task (the goal in words)")
        return None
    try:
        return Task.model_validate({"goal": goal, **({"success": criteria} if criteria else {})})
    except ValidationError as error:
        fail(f"--task: {_validation_message(error)}")


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


@app.command()
def predict(
    persona: Annotated[str, typer.Option("--persona", help="Persona id.")],
    page: Annotated[
        Path | None, typer.Option("--page", help="A simplified (OPeRA) or raw HTML page; omit for page-free.")
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="The page's URL, when known.")] = None,
    history: Annotated[
        Path | None, typer.Option("--history", help="JSON list of steps: [{action, rationale?}, ...].")
    ] = None,
    brain: Annotated[str, typer.Option("--brain", callback=_brain, help=BRAIN_HELP)] = "embedded",
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
    vision: Annotated[str | None, typer.Option("--vision", callback=_vision, help=VISION_HELP)] = None,
    grounding: Annotated[str | None, typer.Option("--grounding", callback=_grounding, help=GROUNDING_HELP)] = None,
    prompt_style: Annotated[
        str | None,
        typer.Option(
            "--prompt-style",
            callback=_prompt_style,
            help="--brain llm: twinsim (default), opera-protocol or opera-protocol-rationale (the OPeRA paper's "
            "protocol).",
        ),
    ] = None,
) -> None:
    """Predict a persona's next action on a page."""
    from agent.options import PredictOptions
    from agent.page.observation import EMPTY_OBSERVATION
    from agent.page.read_page import PageRefused, read_page
    from personas.memory_store import PersonaNotFound

    given_task = _task(task)
    settings = Settings()
    shot = _screenshot_file(screenshot, settings) if screenshot is not None else None
    html = None
    if page is not None:
        try:
            html = page.read_text(errors="replace")
        except OSError as error:
            fail(f"{page}: {error}")
    steps = _read_history(history)
    services = _services(warm=True)  # load the embedder first, so the printed latency is the prediction's
    try:
        read = (
            None
            if html is None
            else read_page(
                html, url=url, label=str(page), max_bytes=settings.max_page_bytes, limits=settings.page_limits
            )
        )
    except PageRefused as error:
        fail(str(error))
    try:
        persona_obj = services.store.get_persona(persona)
    except PersonaNotFound:
        fail(f"persona '{persona}' not found; import it with `twinsim personas import FILE`")
    except ValueError as error:
        fail(str(error))
    options = PredictOptions(vision=vision, grounding=grounding, prompt_style=prompt_style)
    prediction = asyncio.run(
        services.graph.predict(
            persona=persona_obj,
            observation=read.observation if read else EMPTY_OBSERVATION,
            history=steps,
            brain=brain,
            model=model,
            task=given_task,
            options=options,
            screenshot=shot,
            page_html=read.simplified_html if read else None,
        )
    )
    if as_json:
        print(prediction.model_dump_json(indent=2))
    else:
        _print_prediction(prediction, persona)


@app.command()
def demo() -> None:
    """Import the OPeRA sample users, then let each twin act on a realistic search-results page (offline)."""
    from service.cli.demo import run_demo

    run_demo(console)


@app.command()
def calibrate(
    *,  # keyword-only, as Typer calls it: a required option may follow ones with defaults, in --help's order
    timelines: Annotated[Path | None, typer.Option(help="OPeRA timelines.jsonl (default: the shared data).")] = None,
    personas: Annotated[Path | None, typer.Option(help="personas.jsonl (default: the shared data).")] = None,
    actions: Annotated[
        Path | None, typer.Option(help="The full OPeRA action table (parquet/csv/jsonl), when you have it.")
    ] = None,
    users: Annotated[Path | None, typer.Option(help="The OPeRA user table matching --actions.")] = None,
    out: Annotated[
        Path, typer.Option(help="Where to write the parameters (the shipped file is agent/behaviour/params.json).")
    ],
    seed: Annotated[int, typer.Option()] = 0,
) -> None:
    """Fit the embedded brain's behaviour model on recorded sessions."""
    from agent.calibration.blas_kernel import pin_calibration_kernel

    pin_calibration_kernel()  # before numpy loads: the same bytes on every x86-64 CPU
    from agent.calibration.calibrate import calibrate as fit

    for path in (timelines, personas, actions, users):
        if path is not None and not path.exists():
            fail(f"{path}: no such file")
    try:
        report = fit(timelines=timelines, personas=personas, actions=actions, users=users, out=out, seed=seed)
    except ValueError as error:
        fail(str(error))
    console.print_json(json.dumps(report, default=str))


class EvalFormat(StrEnum):
    opera = "opera"
    mind2web = "mind2web"


class Mind2WebSplit(StrEnum):
    test_task = "test_task"
    test_website = "test_website"
    test_domain = "test_domain"
    train = "train"


@app.command("eval")
def evaluate(
    path: Annotated[
        Path | None,
        typer.Argument(
            help="--format mind2web: Multimodal-Mind2Web parquet files (a file, "
            "or a directory searched for <split>-*.parquet) or JSONL of the same rows."
        ),
    ] = None,
    data_format: Annotated[
        EvalFormat,
        typer.Option(
            "--format",
            help="opera: recorded OPeRA sessions (--actions, --users); mind2web: the Multimodal-Mind2Web benchmark "
            "(PATH).",
        ),
    ] = EvalFormat.opera,
    split: Annotated[
        Mind2WebSplit | None,
        typer.Option("--split", help="mind2web: the split to score (default: every test split found)."),
    ] = None,
    actions: Annotated[
        Path | None, typer.Option("--actions", help="OPeRA action table: parquet (file or directory), CSV or JSONL.")
    ] = None,
    users: Annotated[
        Path | None, typer.Option("--users", help="OPeRA user table, personas.jsonl, or native personas.")
    ] = None,
    brain: Annotated[str, typer.Option("--brain", callback=_brain, help=BRAIN_HELP)] = "embedded",
    model: Annotated[str | None, typer.Option("--model", help="litellm model for --brain llm.")] = None,
    ablate: Annotated[str, typer.Option("--ablate", help="Comma-separated: persona, rationale, memory.")] = "",
    sessions: Annotated[
        str, typer.Option("--sessions", help="Comma-separated session ids to evaluate (default: all).")
    ] = "",
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Evaluate at most N sessions (mind2web: tasks).")
    ] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=256)] = 4,
    out: Annotated[Path | None, typer.Option("--out", help="Write the JSON report here.")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="Write the HTML report here.")] = None,
    checkpoint: Annotated[
        Path | None, typer.Option("--checkpoint", help="Resume file (default: next to --out).")
    ] = None,
    prompt_style: Annotated[
        str | None,
        typer.Option(
            "--prompt-style",
            callback=_prompt_style,
            help="opera: --brain llm's prompt: twinsim (its own: memories, page facts, elements), opera-protocol (the "
            "OPeRA "
            "paper's protocol: persona, history, full simplified HTML; next action only) or opera-protocol-rationale "
            "(rationale and action). Default: TWINSIM_LLM_PROMPT_STYLE, twinsim.",
        ),
    ] = None,
    grounding: Annotated[str | None, typer.Option("--grounding", callback=_grounding, help=GROUNDING_HELP)] = None,
    vision: Annotated[str | None, typer.Option("--vision", callback=_vision, help=VISION_HELP)] = None,
    screenshots: Annotated[
        bool,
        typer.Option(
            "--screenshots",
            help="--brain llm sees each step's screenshot: OPeRA's "
            "`image` column, Mind2Web's `screenshot`, where the row has one (with a model "
            "that takes images, or --vision always).",
        ),
    ] = False,
) -> None:
    """Replay recorded sessions and score the twins' predictions as the OPeRA paper does, or score them on
    Multimodal-Mind2Web as Mind2Web does (--format mind2web PATH)."""
    if data_format == EvalFormat.mind2web:
        _evaluate_mind2web(
            path,
            split,
            actions=actions,
            users=users,
            ablate=ablate,
            sessions=sessions,
            checkpoint=checkpoint,
            brain=brain,
            model=model,
            limit=limit,
            concurrency=concurrency,
            out=out,
            html=html,
            prompt_style=prompt_style,
            grounding=grounding,
            vision=vision,
            screenshots=screenshots,
        )
        return
    if path is not None or split is not None:
        fail("PATH and --split are for --format mind2web; OPeRA sessions are read from --actions and --users")
    if actions is None or users is None:
        fail("--format opera needs --actions (the action table) and --users (the user table or personas)")
    from service.cli.evaluation import run_eval_command

    ablations = frozenset(a.strip() for a in ablate.split(",") if a.strip())
    session_ids = [s.strip() for s in sessions.split(",") if s.strip()] or None
    try:
        report = run_eval_command(
            actions=actions,
            users=users,
            brain=brain,
            model=model,
            ablate=ablations,
            sessions=session_ids,
            limit=limit,
            concurrency=concurrency,
            out=out,
            html=html,
            checkpoint=checkpoint,
            console=console,
            prompt_style=prompt_style,
            grounding=grounding,
            vision=vision,
            screenshots=screenshots,
        )
    except ValueError as error:
        fail(str(error))
    metrics = report["metrics"]
    for key in (
        "n",
        "exact_match",
        "action_type_macro_f1",
        "action_type_weighted_f1",
        "click_type_weighted_f1",
        "fine_grained_accuracy",
        "outcome_accuracy",
        "outcome_weighted_f1",
    ):
        value = metrics.get(key)
        console.print(f"{key:>26}: {value if value is None or key == 'n' else f'{value:.4f}'}")


def _evaluate_mind2web(
    path: Path | None,
    split: Mind2WebSplit | None,
    *,
    actions,
    users,
    ablate,
    sessions,
    checkpoint,
    brain: str,
    model: str | None,
    limit: int | None,
    concurrency: int,
    out: Path | None,
    html: Path | None,
    prompt_style: str | None,
    grounding: str | None,
    vision: str | None,
    screenshots: bool,
) -> None:
    if path is None:
        fail("--format mind2web needs PATH: the Multimodal-Mind2Web parquet files or JSONL rows")
    given = [
        flag
        for flag, value in (
            ("--actions", actions),
            ("--users", users),
            ("--ablate", ablate),
            ("--sessions", sessions),
            ("--checkpoint", checkpoint),
            ("--prompt-style", prompt_style),
        )
        if value
    ]
    if given:
        fail(f"{', '.join(given)}: OPeRA options, not used with --format mind2web")
    from service.cli.mind2web_eval import run_mind2web_command

    try:
        report = run_mind2web_command(
            path=path,
            split=split.value if split else None,
            brain=brain,
            model=model,
            tasks=limit,
            concurrency=concurrency,
            out=out,
            html=html,
            console=console,
            grounding=grounding,
            vision=vision,
            screenshots=screenshots,
        )
    except ValueError as error:
        fail(str(error))
    for name, metrics in report["splits"].items():
        figures = "  ".join(
            f"{key} {metrics[key]:.4f}" if metrics[key] is not None else f"{key} n/a"
            for key in ("element_accuracy", "operation_f1", "step_success_rate", "task_success_rate")
        )
        console.print(f"{name}: {metrics['n_tasks']} tasks, {metrics['n_steps']} steps  {figures}")


def _check_ray_head() -> None:
    """With TWINSIM_EXECUTOR=ray, a head that does not answer is a message in seconds, before the store opens."""
    settings = Settings()
    if settings.executor == "ray" and settings.ray_address:
        from agent.ray_executor import RayUnavailable, check_reachable

        try:
            check_reachable(settings.ray_address)
        except RayUnavailable as error:
            fail(str(error))


def _validation_message(error: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors(include_url=False))


@app.command()
def shop(host: str = "127.0.0.1", port: Annotated[int, typer.Option(min=1, max=65535)] = 8100) -> None:
    """Serve the demo shop (twinshop) for live simulations; `?variant=b` is the B side of its A/B switch."""
    import uvicorn

    uvicorn.run("service.demo_shop.app:app", host=host, port=port, log_level="warning")


@app.command()
def simulate(
    *,  # keyword-only, as Typer calls it: a required option may follow ones with defaults, in --help's order
    url: Annotated[
        str, typer.Option("--url", help="Where every twin starts, e.g. http://127.0.0.1:8100/ (twinsim shop).")
    ],
    personas: Annotated[str, typer.Option("--personas", help="Comma-separated persona ids.")] = "",
    all_personas: Annotated[bool, typer.Option("--all", help="Every stored persona.")] = False,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, max=100, help="Actions per twin at most.")] = 10,
    out: Annotated[
        Path, typer.Option("--out", help="Directory for report.json, report.html, traces/ and screenshots/.")
    ],
    brain: Annotated[str, typer.Option("--brain", callback=_brain, help=BRAIN_HELP)] = "embedded",
    model: Annotated[str | None, typer.Option("--model", help="litellm model for --brain llm.")] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Same seed, same site: the same traces.")] = 0,
    screenshots: Annotated[bool, typer.Option("--screenshots", help="Save a screenshot before every action.")] = False,
    vision: Annotated[str | None, typer.Option("--vision", callback=_vision, help=VISION_HELP)] = None,
    grounding: Annotated[str | None, typer.Option("--grounding", callback=_grounding, help=GROUNDING_HELP)] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency", min=1, max=16, help="Twins browsing at once (default: one per core, at least 2)."
        ),
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
    from agent.browsing import SimulationConfig
    from service.jobs.simulations import (
        SimulationRequestError,
        StartPageFailed,
        check_and_load,
        check_start_page,
        persona_ids_for,
        run_blocking,
    )

    given_task = _task(task, task_url, task_element, task_text)
    ids = [p.strip() for p in personas.split(",") if p.strip()]
    if not ids and not all_personas:
        fail("name personas with --personas ID,... or use --all")
    try:  # the URL and limits first, then one request to the URL: no store, no browser for a run that cannot work
        check_start_page(
            SimulationConfig(url=url, persona_ids=ids or ["-"], max_steps=max_steps, seed=seed),
            Settings().host_allow_list,
        )
    except ValidationError as error:
        fail(_validation_message(error))
    except StartPageFailed as error:
        fail(str(error))
    _check_ray_head()
    services = _services(warm=True)
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
        fail(_validation_message(error))
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


def main() -> None:
    """The console entry point: invalid TWINSIM_* settings or a store held by another process are a message
    and exit 2, not a traceback."""
    from personas.store_lock import StoreInUse

    try:
        app()
    except StoreInUse as error:
        err.print(f"[red]error:[/red] {error}")
        sys.exit(2)
    except ValidationError as error:
        if error.title != Settings.__name__:
            raise
        err.print(f"[red]error:[/red] invalid settings (TWINSIM_* environment or .env): {_validation_message(error)}")
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
