"""`twinsim report compare RUN_A RUN_B`: two finished runs side by side (agent/comparison/run_comparison.py).

Without --out the comparison is printed as JSON on stdout (notes on stderr); with --out DIR it is written to
DIR/comparison.json and DIR/comparison.html and summed up on the terminal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from service.cli.failure import fail

report_app = typer.Typer(help="Reports on finished runs.", no_args_is_help=True)
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


@report_app.command("compare")
def compare(
    run_a: Annotated[
        Path,
        typer.Argument(
            metavar="RUN_A",
            help="A run's directory: the --out of `twinsim experiment "
            "run` (results.json) or of `twinsim simulate` (report.json).",
        ),
    ],
    run_b: Annotated[Path, typer.Argument(metavar="RUN_B", help="The run to set against RUN_A, of the same kind.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write comparison.json and comparison.html here (default: the JSON on stdout)."),
    ] = None,
) -> None:
    """Compare two runs: what differs in their setup, and each outcome in A and B with the difference and a test."""
    from agent.comparison.comparison_error import ComparisonError
    from agent.comparison.run_comparison import compare_runs
    from agent.comparison.run_files import RunUnreadable, read_run
    from agent.reporting.compare_report import render_comparison_html

    try:
        first, second = read_run(run_a), read_run(run_b)
        comparison = compare_runs(
            first.document, second.document, labels=(str(run_a), str(run_b)), samples=(first.samples, second.samples)
        )
    except (RunUnreadable, ComparisonError) as error:
        fail(str(error))
    for note in comparison["comparability"]["notes"]:
        err.print(f"[yellow]notice:[/yellow] {note}", highlight=False)
    if out is None:
        typer.echo(json.dumps(comparison, indent=2, ensure_ascii=False))
        return
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "comparison.json").write_text(json.dumps(comparison, indent=2, ensure_ascii=False))
        (out / "comparison.html").write_text(render_comparison_html(comparison))
    except OSError as error:
        fail(f"{out}: {error.strerror or error}")
    _print_summary(comparison)
    console.print(f"comparison: {out / 'comparison.html'}  ({out / 'comparison.json'})", highlight=False)


def _print_summary(comparison: dict) -> None:
    differences = comparison["config"]["differences"]
    console.print(
        f"{comparison['kind']}s compared; setup differs in: "
        f"{', '.join(d['setting'] for d in differences) or 'nothing'}",
        highlight=False,
    )
    groups = (
        [(None, comparison["pairing"], comparison["metrics"])]
        if comparison["kind"] == "simulation"
        else [(v["variant"], v["pairing"], v["metrics"]) for v in comparison["variants"]]
    )
    for variant, pairing, metrics in groups:
        console.print(
            ("" if variant is None else f"variant {variant}: ")
            + ("paired (McNemar)" if pairing["paired"] else "independent samples"),
            highlight=False,
        )
        for m in metrics:
            if m["difference"] is None:
                console.print(f"  {m['label']:>24}: {m.get('reason')}", highlight=False)
                continue
            console.print(
                f"  {m['label']:>24}: A {100 * m['a']['rate']:5.1f}%  B {100 * m['b']['rate']:5.1f}%  "
                f"{100 * m['difference']:+6.1f} pp  p(Holm)={m['p_adjusted']:.3g}"
                + ("  [green]beyond noise[/green]" if m["beyond_noise"] else ""),
                highlight=False,
            )
