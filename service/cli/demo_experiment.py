"""The demo's A/B run: the demo twins on the shipped deal-banner experiment (examples/experiments), in seconds.

Shows the point of twins in one screen: the same people, instanced with seeded sampling, see the product
page with reviews (A) and with a deal banner instead (B); the rates, the paired tests, why twins left (in
their own words, from the facts that drove them) and a report follow.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from rich.console import Console

from agent.experiments.execution import ExperimentExecutor
from agent.experiments.planning import check_experiment
from agent.experiments.spec import ExperimentSpec, load_spec
from agent.exports.experiment_export import ExperimentExport
from agent.reporting.experiment_report import render_report
from service.container import Services, experiment_context

EXAMPLE_SPEC = Path(__file__).resolve().parents[2] / "examples" / "experiments" / "deal_banner.yaml"
DEMO_INSTANCES = 50


def run_demo_experiment(console: Console, services: Services, persona_ids: list[str]) -> dict:
    started = time.perf_counter()
    data = load_spec(EXAMPLE_SPEC).model_dump(exclude_none=True)
    data.update(population={"ids": persona_ids}, samples_per_persona=DEMO_INSTANCES, segments=[])
    spec = ExperimentSpec.model_validate(data)
    context = experiment_context(services)
    checked = check_experiment(context, spec, base_dir=EXAMPLE_SPEC.parent, allow_paths=True)
    console.print(
        f"\n[bold]A/B experiment[/bold] ({EXAMPLE_SPEC.relative_to(EXAMPLE_SPEC.parents[2])}): "
        f"{spec.description.strip() if spec.description else spec.name}"
    )
    console.print(f"{len(checked.prepared.personas)} twins x {DEMO_INSTANCES} seeded instances x 2 variants")
    out = services.settings.data_dir / "demo_experiment"
    out.mkdir(parents=True, exist_ok=True)
    export = ExperimentExport(out, checked.prepared, run_id=out.name, fresh=True)  # every decision, beside results
    results = ExperimentExecutor(context).run(checked, export=export)
    analysis = results["analysis"]
    for name, variant in analysis["variants"].items():
        rates = variant["rates"]
        console.print(
            f"  variant {name}: bought {100 * rates['purchase']['rate']:.0f}%, left "
            f"{100 * rates['leave']['rate']:.0f}%, clicked the banner "
            f"{100 * rates['target:deal_banner']['rate']:.0f}%  (n={variant['n']})"
        )
    for comparison in analysis["comparisons"]:
        for outcome, r in comparison["outcomes"].items():
            verdict = "[green]significant[/green]" if r["significant"] else "not significant"
            console.print(
                f"  {outcome}: {100 * r['difference']:+.0f} points B vs A, {r['test']}, "
                f"adjusted p={r['p_adjusted']:.3g} ({verdict})"
            )
    for name, by_outcome in (results.get("themes", {}).get("variants") or {}).items():
        themes = (by_outcome.get("left") or {}).get("themes") or []
        if name != "A" and themes:
            console.print(
                f"  why twins left in {name} ({themes[0]['share']:.0%} of leavers): {themes[0]['representatives'][0]}"
            )
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    (out / "report.html").write_text(render_report(results))
    console.print(
        f"  report: {out / 'report.html'} ({time.perf_counter() - started:.1f} s). "
        "Your own: `twinsim experiment run SPEC --out DIR` (docs/experiments.md)"
    )
    return results
