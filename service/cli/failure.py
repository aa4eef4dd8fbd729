"""How every twinsim command refuses: one red line on stderr with the reason (escaped, since it often quotes a path
or the user's own input), and a non-zero exit, never a traceback."""

from __future__ import annotations

from typing import NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def validation_message(error: ValidationError) -> str:
    """A pydantic error as one line: each field's path and what is wrong with it, no URLs."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors(include_url=False))
