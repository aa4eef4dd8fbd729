"""`twinsim interview PERSONA "QUESTION" [--run DIR] [--variant V --instance N --step S | --decision ID]`: ask a
persona's twin a question, optionally about one of its decisions in a finished run (agent/interview.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.console import Console
from rich.markup import escape

from service.cli.failure import fail

console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _run_dir(run: str, data_dir: Path) -> Path:
    """A run directory (`experiment run --out`, `simulate --out`), or the id of an API experiment on this data dir."""
    path = Path(run)
    if path.is_dir():
        return path
    stored = data_dir / "experiments" / run
    if run.replace("-", "").isalnum() and stored.is_dir():
        return stored
    fail(f"run '{run}' not found: not a directory, nor an experiment id on {data_dir}")


def interview_command(
    persona: Annotated[str, typer.Argument(help="Persona id.")],
    question: Annotated[str, typer.Argument(help="The question, in words.")],
    run: Annotated[
        str | None,
        typer.Option(
            "--run",
            help="A run directory (experiment run --out, simulate --out), "
            "or an API experiment id; the question is about one of its decisions.",
        ),
    ] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="The variant of the twin run asked about.")] = None,
    instance: Annotated[int | None, typer.Option("--instance", min=0, help="Its twin instance (0..k-1).")] = None,
    step: Annotated[
        int | None, typer.Option("--step", min=1, help="Its step (default: the run's last decision).")
    ] = None,
    decision: Annotated[
        str | None, typer.Option("--decision", help="A decision_id of the run's export instead.")
    ] = None,
    brain: Annotated[
        str,
        typer.Option("--brain", help="embedded (assembled from the decision's drivers and the person's words) or llm."),
    ] = "embedded",
    model: Annotated[str | None, typer.Option("--model", help="litellm model for --brain llm.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole answer as JSON.")] = False,
) -> None:
    """Interview a twin: why it did what it did in a run, or anything about the person, in their words."""
    from agent.exports.decision_lookup import DecisionNotFound
    from agent.exports.run_export import ExportFormatError, ExportMissing
    from agent.interview import MAX_QUESTION_CHARS, RECALL_K, InterviewBrain, decision_in_run, interview
    from personas.memory_store import PersonaNotFound
    from service.container import build_services
    from service.settings import Settings

    if brain not in ("embedded", "llm"):
        fail(f"--brain must be embedded or llm, not '{brain}'")
    if not question.strip():
        fail("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        fail(f"the question is {len(question):,} characters; at most {MAX_QUESTION_CHARS:,}")
    if run is None and (decision or variant is not None or instance is not None or step is not None):
        fail("--variant, --instance, --step and --decision refer to a decision of a run: add --run")
    settings = Settings()
    directory = _run_dir(run, settings.data_dir) if run is not None else None
    services = build_services(settings, warm=False)
    try:
        person = services.store.get_persona(persona)
    except PersonaNotFound:
        fail(f"persona '{persona}' not found; import it with `twinsim personas import FILE`")
    except ValueError as error:
        fail(str(error))
    asked, page_html = None, None
    if directory is not None:
        try:
            asked, page_html = decision_in_run(
                directory,
                persona,
                question,
                services.store.embedder.embed,
                decision_id=decision,
                variant=variant,
                instance=instance,
                step=step,
            )
        except ExportMissing:
            fail(
                f"{directory} has no decision export (decisions.jsonl): the run was made before decisions were "
                "exported, or has not finished a twin"
            )
        except (DecisionNotFound, ExportFormatError) as error:
            fail(f"{directory}: {error}")
    memories = services.store.recall(persona, question, RECALL_K)
    answer = asyncio.run(
        interview(
            question,
            person,
            memories,
            decision=asked,
            page_html=page_html,
            brain=cast(InterviewBrain, brain),  # checked against the two above
            llm=services.llm,
            model=model or settings.llm_model,
            embed=services.store.embedder.embed,
        )
    )
    if as_json:
        print(answer.model_dump_json(indent=2))
        return
    _print(answer)


def _print(answer) -> None:
    if answer.decision is not None:
        d = answer.decision
        console.print(
            f"[bold]{escape(answer.persona_id)}[/bold] on {escape(d.where())}: "
            f"{escape(str(d.action))} ({d.decision_id})"
        )
    if answer.fallback_used:
        err.print(f"[yellow]fallback:[/yellow] {escape(answer.fallback_reason or '')}")
    console.print(f"[cyan]answer ({answer.brain}):[/cyan] {escape(answer.answer)}")
    for driver in answer.drivers:
        console.print(f"  [dim]driver {escape(driver.driver)} ({driver.kind}):[/dim] {escape(driver.phrase)}")
    for memory in answer.memories:
        console.print(f"  [dim]memory {escape(memory.id)} ({memory.kind}):[/dim] {escape(memory.text[:200])}")
