"""Twins on a real third-party shop (django-oscar from PyPI, tests/support/oscar_shop): speed, how often the element
a twin chose was found and acted on, how far twins get (basket, checkout, placed orders), task success, and A/Bs of
live configurations with whether the twins could see the difference. Writes benchmarks/results/real_shop.json.

- install: with --clean-install, a fresh install into a temporary folder (a new venv, pip with its cache off, so
  every package is downloaded; migrations; the catalogue), timed as CI would meet it on a clean clone.
- simulation: the first --twins OPeRA personas browse a fresh shop instance from its start page for at most --steps
  steps, two at a time (the live-run default): twins per minute, steps per second, predict time per step, the share
  of actions whose element was found on the live page and acted on (a step that is not "leave" and has a page after
  it; failures count against it), the funnel (order: the shop's confirmation page), the checkout fields filled with
  TEST details, and what the shop's own database holds afterwards (basket lines, orders).
- task: the same twins, on another fresh instance, with the task TASK (judged on the order confirmation page, which
  must list the product), from the shop's start page and from the product's own page.
- ab: --ab-twins personas, one instance each, browse a fresh control and a second live configuration as an
  experiment's live variants (AB_VARIANTS: every price 25% lower; one product dearer; red buttons only): rates,
  paired tests, visibility (could the twins see the difference) and the run's time.
Run: .venv/bin/python benchmarks/real_shop.py [--twins 16] [--steps 12] [--ab-twins 16] [--ab-steps 8] [--clean-install]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, SHARED_OPERA, percentile, write_result

from agent.experiments.execution import ExperimentExecutor
from agent.experiments.planning import check_experiment
from agent.experiments.spec import parse_spec
from agent.simulation import SimulationConfig, run_simulation
from agent.tasks import Task
from service.container import experiment_context
from tests.support.oscar_shop import install, start, stop
from tests.support.oscar_shop.records import basket_lines, orders
from tests.support.sample_twins import services_with_opera_personas


def clean_install() -> dict:
    """A fresh install in a temporary folder, pip's cache off: what a clean clone in CI pays."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "TWINSIM_OSCAR_HOME": home, "PIP_NO_CACHE_DIR": "1"}
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "tests.support.oscar_shop", "install"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return {
            "seconds": round(time.perf_counter() - started, 1),
            "steps": done.stdout.strip().splitlines()[-1],
            "pip_cache": "off (every package downloaded from PyPI)",
        }


# Reached on the order confirmation that lists the product: an order of something else is not this task.
TASK = {
    "goal": "buy the Insulated Water Bottle 750 ml",
    "success": {
        "url": "*/checkout/thank-you/",
        "text": "your order has been placed",
        "element": "Insulated Water Bottle 750 ml",
    },
}
TASK_PRODUCT_PAGE = "catalogue/insulated-water-bottle-750-ml_8/"


def simulation(twins: int, steps: int, seed: int, task: dict | None = None, path: str = "") -> dict:
    services, personas = services_with_opera_personas(Path(tempfile.mkdtemp()), SHARED_OPERA, twins)
    shop = start("bench-simulation", "control")
    try:
        config = SimulationConfig(
            url=shop.url + path,
            persona_ids=[p.id for p in personas],
            max_steps=steps,
            seed=seed,
            task=Task(**task) if task else None,
        )
        started = time.perf_counter()
        result = asyncio.run(run_simulation(config, personas, services.graph))
        seconds = time.perf_counter() - started
        lines, placed = basket_lines(shop), orders(shop)
    finally:
        stop(shop.name)
    traces = result.traces
    taken = [s for t in traces for s in t.steps]
    acting = [s for s in taken if s.action.type != "terminate"]
    acted = [s for s in acting if s.result_url]
    predict = [s.predict_ms for s in taken]
    added = [
        t
        for t in traces
        if any(s.click_type == "purchase" and s.page_type in ("product", "search_results") for s in t.steps)
    ]
    details = result.test_details or {}
    return {
        "twins": twins,
        "max_steps": steps,
        "seed": seed,
        "concurrency": config.concurrency,
        "start": "/" + path,
        "task": task,
        "seconds": round(seconds, 1),
        "steps": len(taken),
        "twins_per_minute": round(60 * twins / seconds, 2),
        "steps_per_second": round(len(taken) / seconds, 2),
        "predict_ms": {"p50": round(statistics.median(predict), 1), "p95": round(percentile(predict, 95), 1)},
        "actions": len(acting),
        "found_and_acted_on": len(acted),
        "found_and_acted_on_share": round(len(acted) / len(acting), 4) if acting else None,
        "failures": result.funnel.failures,
        "outcomes": result.funnel.outcomes,
        "funnel": {row.stage: row.twins for row in result.funnel.reached},
        "added_to_basket": len(added),
        "added_then_reached_basket": sum(any(s.page_type == "cart" for s in t.steps) for t in added),
        "basket_lines_in_shop": len(lines),
        "products_in_baskets": sorted({title for title, _ in lines}),
        "orders_in_shop": len(placed),
        "orders": [
            {"number": o.number, "email": o.guest_email, "total": o.total, "products": list(o.products), "city": o.city}
            for o in placed
        ],
        "test_details_filled": details.get("fields_by_kind", {}),
        "required_fields_left_empty": len(details.get("left_empty", [])),
        "task_success": None
        if result.task is None
        else {k: result.task[k] for k in ("judged", "reached", "share", "median_step")},
    }


# variant of the shop (project/shopsite/variants.py) -> what it changes, and the elements whose clicks are counted
AB_VARIANTS = {
    "sale": ("every price 25% lower", ["page.view_cart", "page.proceed_to_checkout"]),
    "socks_dearer": ("the merino socks at £27.75 instead of £18.50", ["merino_wool_socks_3"]),
    "red_buttons": ("red buttons instead of blue and green (only the look)", ["page.view_cart"]),
}


def ab(variant: str, twins: int, steps: int) -> dict:
    """A fresh control and the variant, each its own instance (no basket or order of another run in either)."""
    control, other = start("bench-ab-control", "control"), start("bench-ab-variant", variant)
    try:
        return _ab(control.url, other.url, variant, twins, steps)
    finally:
        stop(control.name)
        stop(other.name)


def _ab(control_url: str, variant_url: str, variant: str, twins: int, steps: int) -> dict:
    services, personas = services_with_opera_personas(Path(tempfile.mkdtemp()), SHARED_OPERA, twins)
    change, targets = AB_VARIANTS[variant]
    spec = parse_spec(
        {
            "name": f"real shop: {change}",
            "variants": [
                {"name": "A", "live_url": control_url, "max_steps": steps},
                {"name": "B", "live_url": variant_url, "max_steps": steps},
            ],
            "population": {"ids": [p.id for p in personas]},
            "samples_per_persona": 1,
            "targets": targets,
            "seed": 11,
        }
    )
    context = experiment_context(services)
    started = time.perf_counter()
    results = ExperimentExecutor(context).run(check_experiment(context, spec))
    seconds = time.perf_counter() - started
    analysis = results["analysis"]
    outcomes = analysis["comparisons"][0]["outcomes"]
    distributions = analysis["comparisons"][0].get("distributions") or {}
    return {
        "variant": variant,
        "change": change,
        "twins": twins,
        "variants": 2,
        "max_steps": steps,
        "seconds": round(seconds, 1),
        "first_action_tests": {name: d.get("p_value") for name, d in distributions.items()},
        "rates": {
            name: {k: v["rate"] for k, v in variant["rates"].items()} for name, variant in analysis["variants"].items()
        },
        "paired_tests": {
            name: {
                "test": o["test"],
                "difference": round(o["difference"], 4),
                "p_value": round(o["p_value"], 4),
                "p_adjusted": o["p_adjusted"],
                "table": o.get("table"),
            }
            for name, o in outcomes.items()
        },
        "visibility": _visibility(results["visibility"]),
    }


def _visibility(seen: dict) -> dict:
    b = seen["variants"]["B"]
    return {
        "distinguishable": seen["distinguishable"],
        "pairs_compared": b["pairs_compared"],
        "pages_compared": b["pages_compared"],
        "pairs_seeing_a_difference": b["pairs_seeing_a_difference"],
        "first_difference_at": b["first_difference_at"],
        "note": seen["note"],
        "example": b["examples"][0] if b["examples"] else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--twins", type=int, default=16)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ab-twins", type=int, default=16)
    parser.add_argument("--ab-steps", type=int, default=8)
    parser.add_argument("--clean-install", action="store_true")
    args = parser.parse_args()
    result: dict = {"load_before": round(os.getloadavg()[0], 2)}
    if args.clean_install:
        result["clean_install"] = clean_install()
    result["install_here"] = install()  # 0 s per step when reused
    result["simulation"] = simulation(args.twins, args.steps, args.seed)
    result["task"] = simulation(args.twins, args.steps, args.seed, TASK)
    result["task_from_product_page"] = simulation(args.twins, args.steps, args.seed, TASK, TASK_PRODUCT_PAGE)
    result["ab"] = [ab(variant, args.ab_twins, args.ab_steps) for variant in AB_VARIANTS]
    result["load_after"] = round(os.getloadavg()[0], 2)
    result["shop"] = "django-oscar 4.2.1 (PyPI), the team's made-up catalogue (tests/support/oscar_shop)"
    write_result("real_shop", result)


if __name__ == "__main__":
    main()
