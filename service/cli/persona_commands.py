"""`twinsim personas import FILE...` and `twinsim personas list`: put personas in the store and see what is there
(the merge rules live in service/cli/persona_import.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console

from service.cli.failure import fail
from service.settings import Settings

personas_app = typer.Typer(help="Import and inspect personas.", no_args_is_help=True)
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


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
with --replace."""
    from personas.sources import PersonaSourceError, load_personas
    from service.cli.persona_import import combine_loaded, import_personas
    from service.tenant_store import open_tenant_store, store_description

    loaded: list[tuple[str, Any]] = []
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
