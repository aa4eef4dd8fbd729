"""How long the analysis of an A/B experiment takes once the twins have run: statistics (analyse), rationale
themes (real sentence embedder) and the HTML report, on seeded synthetic samples of growing size.

    .venv/bin/python benchmarks/experiment_analysis.py      # writes benchmarks/results/experiment_analysis.json
"""

from __future__ import annotations

import time

import numpy as np
from _common import write_result

from agent.experiments.flips import persona_flips
from agent.experiments.samples import Sample
from agent.experiments.statistics import analyse
from agent.experiments.step_paths import step_paths
from agent.experiments.themes import rationale_themes
from agent.reporting.experiment_report import render_report

VARIANTS = ["control", "banner", "price_first"]
TARGETS = ["deal_banner", "add_to_cart_button", "reviews.see_all"]
REASONS = [
    "the price is too high",
    "delivery is too slow",
    "the reviews look good",
    "I need another colour",
    "it is a good deal",
    "I want to compare brands",
    "the size guide is unclear",
    "free returns matter to me",
]
OPENINGS = [
    "I just opened a product",
    "I've been going through the reviews",
    "I just ran a search",
    "I'm looking at my cart",
]


def synthetic(personas: int, instances: int, seed: int = 0) -> list[Sample]:
    rng = np.random.default_rng(seed)
    samples = []
    for v, variant in enumerate(VARIANTS):
        for p in range(personas):
            for i in range(instances):
                action = ["click", "input", "terminate"][rng.choice(3, p=[0.7, 0.15, 0.15])]
                buys = bool(rng.random() < 0.2 + 0.05 * v)
                samples.append(
                    Sample(
                        variant=variant,
                        persona_id=f"persona-{p}",
                        instance=i,
                        action_type=action,
                        click_type=str(rng.choice(["review", "product_option", "purchase", "search"]))
                        if action == "click"
                        else None,
                        element=None if action == "terminate" else f"element_{rng.integers(30)}",
                        purchase=buys,
                        leave=action == "terminate",
                        target_clicks={t: bool(rng.random() < 0.15) for t in TARGETS},
                        rationale=f"{OPENINGS[rng.integers(4)]}, and {REASONS[rng.integers(8)]}.",
                        segments={
                            "conscientiousness": ["low", "mid", "high"][p % 3],
                            "prime": ["member", "not"][p % 2],
                            "age": ["18-34", "35-54", "55+"][p % 3],
                        },
                    )
                )
    return samples


def main() -> None:
    from personas.embedder import get_embedder

    embed = get_embedder().embed
    embed(["warm up"])
    runs = []
    for personas, instances in ((52, 1), (52, 20), (52, 100)):
        samples = synthetic(personas, instances)
        started = time.perf_counter()
        analysis = analyse(samples, VARIANTS, targets=TARGETS)
        analyse_s = time.perf_counter() - started
        started = time.perf_counter()
        themes = rationale_themes(samples, embed)
        themes_s = time.perf_counter() - started
        started = time.perf_counter()
        html = render_report(
            {
                "spec": {"name": "benchmark"},
                "analysis": analysis,
                "themes": themes,
                "flips": persona_flips(samples, VARIANTS),
                "paths": step_paths(samples, VARIANTS),
            }
        )
        report_s = time.perf_counter() - started
        runs.append(
            {
                "personas": personas,
                "instances": instances,
                "samples": len(samples),
                "tests": analysis["correction"]["n_tests"],
                "analyse_s": round(analyse_s, 3),
                "themes_s": round(themes_s, 3),
                "report_s": round(report_s, 3),
                "report_kb": round(len(html) / 1024, 1),
            }
        )
    write_result(
        "experiment_analysis",
        {
            "what": "analyse (n_bootstrap=2000) + rationale_themes (all-MiniLM-L6-v2, 32 distinct rationales) + "
            "render_report "
            "(flips and paths included; plotly.js inlined, about 4.8 MB of each report) "
            f"on seeded synthetic samples: {len(VARIANTS)} variants, {len(TARGETS)} targets, 3 segment dimensions",
            "runs": runs,
        },
    )


if __name__ == "__main__":
    main()
