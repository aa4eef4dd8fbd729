"""`twinsim experiment run SPEC --out DIR`: an A/B experiment from a YAML/JSON spec, with a progress bar.

Writes DIR/results.json (spec, status, analysis, themes, cost) and DIR/report.html. Finished samples go to
DIR/samples.jsonl as the run goes, so running the same command again after a stop resumes where it was; their
step decisions go to the decision export beside them (DIR/decisions.jsonl, DIR/pages/, and at the end
DIR/decisions.parquet; agent/exports).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from service.cli.failure import fail

experiment_app = typer.Typer(help="A/B experiments on populations of twins.", no_args_is_help=True)
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class _Checkpoint:
    """DIR/samples.jsonl, valid only for the spec whose fingerprint is in DIR/samples.fingerprint."""

    def __init__(self, out: Path, spec_json: str, fresh: bool) -> None:
        self.path = out / "samples.jsonl"
        self.fingerprint_path = out / "samples.fingerprint"
        fingerprint = hashlib.sha256(spec_json.encode()).hexdigest()
        self.started_afresh = fresh or not self.path.exists() or not self.fingerprint_path.exists()
        if self.started_afresh:
            self.path.write_text("")
            self.fingerprint_path.write_text(fingerprint)
        elif self.fingerprint_path.read_text().strip() != fingerprint:
            fail(f"{out} holds samples of another spec; use another --out, or --fresh to start over")

    def load(self):
        from agent.experiments.samples import Sample

        samples = []
        for line in self.path.read_text().splitlines():
            try:
                samples.append(Sample.model_validate_json(line))
            except ValueError:
                continue  # a line cut short by a stop: that sample runs again
        return samples

    def append(self, batch) -> None:
        with self.path.open("a") as handle:
            handle.writelines(sample.model_dump_json() + "\n" for sample in batch)


@experiment_app.command("run")
def run(
    spec_path: Annotated[
        Path, typer.Argument(metavar="SPEC", help="Experiment spec, YAML or JSON (see docs/experiments.md).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Directory for results.json, report.html and samples.jsonl.")],
    personas: Annotated[
        list[Path] | None,
        typer.Option(
            "--personas", help="Import these persona files first (any format `twinsim personas import` reads)."
        ),
    ] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Ignore samples of an earlier run in --out.")] = False,
) -> None:
    """Run an A/B experiment: every persona x instance x variant; statistics, themes and an HTML report."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from agent.executors.ray_units import RayUnavailable
    from agent.experiments.execution import ExperimentExecutor
    from agent.experiments.planning import ExperimentRejected, check_experiment
    from agent.experiments.runner import BudgetExceeded, RunInterrupted
    from agent.experiments.spec import SpecError, load_spec
    from agent.exports.experiment_export import ExperimentExport
    from agent.exports.run_export import ExportFormatError
    from agent.reporting.experiment_report import render_report
    from service.container import build_services, experiment_context
    from service.settings import Settings

    try:
        spec = load_spec(spec_path)
    except SpecError as error:
        fail(str(error))
    for path in personas or ():
        if not path.exists():
            fail(f"{path}: no such file")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        fail(f"{out}: {error.strerror or error}")
    services = build_services(Settings(), warm=False)
    context = experiment_context(services)
    if personas:
        from personas.sources import PersonaSourceError, load_personas

        for path in personas:
            try:
                loaded = load_personas(path)
            except (PersonaSourceError, ValueError) as error:
                fail(f"{path}: {error}")
            with console.status(f"importing {len(loaded)} persona(s) from {path} ..."):
                for persona in loaded:
                    services.store.put_persona(persona)
    try:
        with console.status("checking the spec: personas, population, pages ..."):
            checked = check_experiment(context, spec, base_dir=spec_path.resolve().parent, allow_paths=True)
    except ExperimentRejected as error:
        fail(str(error))
    prepared = checked.prepared
    for note in prepared.notes:
        err.print(f"[yellow]notice:[/yellow] {note}")
    units = prepared.units()
    console.print(
        f"[bold]{spec.name}[/bold]: {len(prepared.personas)} personas x {spec.samples_per_persona} "
        f"instance(s) x {len(spec.variants)} variants = {len(units)} twin runs ({spec.brain} brain)"
    )
    if checked.estimate:
        e = checked.estimate
        console.print(
            f"estimate: {e['calls']} calls, {e['prompt_tokens']:,} prompt tokens, "
            + (f"${e['usd']:.4f}" if e["price_known"] else "price unknown for this model")
            + (f" (budget ${spec.budget_usd:g})" if spec.budget_usd is not None else "")
        )
    checkpoint = _Checkpoint(out, spec.model_dump_json(), fresh)
    try:
        export = ExperimentExport(out, prepared, run_id=out.resolve().name, fresh=checkpoint.started_afresh)
    except ExportFormatError as error:
        fail(f"{error} (--fresh starts over)")
    done = checkpoint.load()
    if done:
        console.print(f"resuming: {len(done)} sample(s) already in {checkpoint.path}")
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    try:
        with Progress(*columns, console=console, transient=False) as bar:
            task = bar.add_task("twins", total=len(units), completed=0)
            results = ExperimentExecutor(context).run(
                checked,
                done=done,
                on_samples=checkpoint.append,
                export=export,
                on_progress=lambda p: bar.update(task, completed=p.done, total=p.total),
            )
    except BudgetExceeded as error:
        fail(f"{error}; the finished samples are kept in {checkpoint.path}", code=3)
    except (RunInterrupted, KeyboardInterrupt):
        fail(f"stopped; run the same command again to resume from {checkpoint.path}", code=130)
    except RayUnavailable as error:
        fail(str(error))
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    (out / "report.html").write_text(render_report(results))
    _print_summary(results)
    exported = results["decisions"]
    if exported["samples_without_rows"]:
        err.print(
            f"[yellow]notice:[/yellow] {exported['samples_without_rows']} resumed sample(s) come from a run made "
            "before decisions were exported and have no rows in the export; --fresh runs them again"
        )
    console.print(
        f"results: {out / 'results.json'}  report: {out / 'report.html'}  "
        f"decisions: {out / 'decisions.parquet'} ({exported['rows']} rows, pages in {out / 'pages'})"
    )


def _print_summary(results: dict) -> None:
    analysis = results.get("analysis") or {}
    cost = results.get("cost") or {}
    if cost.get("provider_check"):
        err.print(f"[yellow]warning:[/yellow] the provider failed its probe call: {cost['provider_check']}")
    if cost.get("fallbacks"):
        err.print(
            f"[yellow]warning:[/yellow] {cost['fallbacks']} of {cost.get('predictions')} decisions fell back to "
            f"the embedded brain (requested: {cost.get('brain')})"
        )
    seen = results.get("visibility") or {}
    if seen.get("distinguishable") is False:
        err.print(f"[yellow]notice:[/yellow] {seen['note']}.")
    for name, variant in (analysis.get("variants") or {}).items():
        rates = variant.get("rates") or {}
        shown = ", ".join(
            f"{outcome} {100 * r['rate']:.1f}%" for outcome, r in rates.items() if r.get("rate") is not None
        )
        console.print(f"  {name}: n={variant.get('n')}  {shown}")
    for comparison in analysis.get("comparisons") or []:
        for outcome, r in (comparison.get("outcomes") or {}).items():
            if r.get("significant"):
                console.print(
                    f"  [green]significant[/green]: {outcome} {comparison.get('variant')} vs "
                    f"{comparison.get('control')} ({r.get('test')}, adjusted p={r.get('p_adjusted'):.3g})"
                )


@experiment_app.command("list")
def list_experiments(
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many, newest first.")] = 100,
) -> None:
    """List the experiments submitted to the API on this data dir (runs of `experiment run` live in their --out)."""
    from service.jobs.experiment_store import ExperimentStore
    from service.settings import Settings

    path = Settings().data_dir / "experiments.sqlite"
    if not path.exists():
        console.print(f"no experiments yet ({path} does not exist)")
        return
    for record in ExperimentStore(path).list(limit=limit):
        typer.echo(f"{record.id}\t{record.name}\t{record.status}\t{record.done}/{record.total}\t{record.created_at}")
