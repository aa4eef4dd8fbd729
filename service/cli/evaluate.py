"""`twinsim eval`: score the twins' predictions on recorded sessions, OPeRA's (service/cli/evaluation.py) or
Multimodal-Mind2Web's (service/cli/mind2web_eval.py); this file checks the flags and prints the figures."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from service.cli.failure import fail
from service.cli.flags import (
    BRAIN_HELP,
    GROUNDING_HELP,
    VISION_HELP,
    brain_flag,
    grounding_flag,
    prompt_style_flag,
    vision_flag,
)

console = Console(soft_wrap=True)


class EvalFormat(StrEnum):
    opera = "opera"
    mind2web = "mind2web"


class Mind2WebSplit(StrEnum):
    test_task = "test_task"
    test_website = "test_website"
    test_domain = "test_domain"
    train = "train"


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
    brain: Annotated[str, typer.Option("--brain", callback=brain_flag, help=BRAIN_HELP)] = "embedded",
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
            callback=prompt_style_flag,
            help="opera: --brain llm's prompt: twinsim (its own: memories, page facts, elements), opera-protocol (the "
            "OPeRA "
            "paper's protocol: persona, history, full simplified HTML; next action only) or opera-protocol-rationale "
            "(rationale and action). Default: TWINSIM_LLM_PROMPT_STYLE, twinsim.",
        ),
    ] = None,
    grounding: Annotated[str | None, typer.Option("--grounding", callback=grounding_flag, help=GROUNDING_HELP)] = None,
    vision: Annotated[str | None, typer.Option("--vision", callback=vision_flag, help=VISION_HELP)] = None,
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
