"""`twinsim calibrate --out FILE`: fit the embedded brain's behaviour model (agent/calibration/) on recorded OPeRA
sessions; the shipped agent/behaviour/params.json is this command's output, reproduced byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from service.cli.failure import fail

console = Console(soft_wrap=True)


def calibrate(
    *,
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
