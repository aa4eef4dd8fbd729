"""The `twinsim` command, assembled: each command group lives in its own module under service/cli/, and this file
only puts them on one app (in the order `twinsim --help` lists them) and turns setup errors into messages."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from service.cli.calibrate import calibrate
from service.cli.demo import demo
from service.cli.evaluate import evaluate
from service.cli.experiment import experiment_app
from service.cli.failure import validation_message
from service.cli.interview import interview_command
from service.cli.llm_serve import llm_app
from service.cli.persona_commands import personas_app
from service.cli.predict import predict
from service.cli.process_exit import leave
from service.cli.report import report_app
from service.cli.servers import serve, shop
from service.cli.simulate import simulate
from service.settings import Settings

app = typer.Typer(
    help="twinsim: persona-conditioned digital twins of online shoppers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
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


app.command("interview")(interview_command)
app.command("serve")(serve)
app.command("predict")(predict)
app.command("demo")(demo)
app.command("calibrate")(calibrate)
app.command("eval")(evaluate)
app.command("shop")(shop)
app.command("simulate")(simulate)
app.add_typer(personas_app, name="personas")
app.add_typer(experiment_app, name="experiment")
app.add_typer(report_app, name="report")
app.add_typer(llm_app, name="llm")


def main() -> None:
    """The console entry point: invalid TWINSIM_* settings or a store held by another process are a message
    and exit 2, not a traceback; a finished command ends the process at once (service/cli/process_exit.py)."""
    from personas.store_lock import StoreInUse

    try:
        app()
    except SystemExit as done:
        leave(done.code)
    except StoreInUse as error:
        err.print(f"[red]error:[/red] {error}")
        sys.exit(2)
    except ValidationError as error:
        if error.title != Settings.__name__:
            raise
        err.print(f"[red]error:[/red] invalid settings (TWINSIM_* environment or .env): {validation_message(error)}")
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
