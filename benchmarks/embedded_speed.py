"""Predictions per second of the embedded brain in one process, without HTTP. Writes
benchmarks/results/embedded_speed.json.

Targets (embedded-brain issue): >= 500 predictions/s on a 100 KB page, >= 2,000/s page-free. Measured
on the brain's own call (what populations and the evaluation use in bulk), over a mix of real OPeRA
personas, history lengths 0..12 and both modes (most likely, seeded sampling). The page is parsed once,
as a population run does; its parse time is reported beside. For scale, the full LangGraph path
(recall included) is in predict_http.json.

Run: .venv/bin/python benchmarks/embedded_speed.py
"""

from __future__ import annotations

import time

from _common import SHARED_OPERA, percentile, write_result

from agent.actions import ClickAction, InputAction
from agent.brains.embedded import EmbeddedBrain
from agent.history import Step
from agent.page.observation import EMPTY_OBSERVATION
from agent.page.parse import parse_page
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.sample_pages import sample_page
from agent.twin_context import TwinContext
from personas.sources import load_personas

HISTORY = [
    Step(action=InputAction(name="nav_bar.search_input", text="running shoes"), click_type=None),
    Step(action=ClickAction(name="nav_bar.search_button"), click_type="search"),
    Step(action=ClickAction(name="search_results.nike_revolution_7.product_name"), click_type="product_link"),
    Step(action=ClickAction(name="product_options.size.button_list.9"), click_type="product_option"),
    Step(action=ClickAction(name="reviews"), click_type="review"),
    Step(action=ClickAction(name="reviews.popover.review_images.next"), click_type="review"),
] * 2


def contexts(personas, observation) -> list[TwinContext]:
    out = []
    for i in range(400):
        persona = personas[i % len(personas)]
        mode = "sample" if i % 2 else "most_likely"
        out.append(
            TwinContext.on_page(
                persona,
                observation,
                PredictionInput(
                    history=HISTORY[: i % 13], options=PredictOptions(mode=mode, seed=i if mode == "sample" else None)
                ),
            )
        )
    return out


def rate(brain: EmbeddedBrain, batch: list[TwinContext], seconds: float = 5.0) -> dict:
    for ctx in batch[:50]:
        brain.decide_sync(ctx)  # warm caches (persona vectors, page index)
    latencies, done, started = [], 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for ctx in batch:
            t0 = time.perf_counter()
            brain.decide_sync(ctx)
            latencies.append((time.perf_counter() - t0) * 1000)
        done += len(batch)
    elapsed = time.perf_counter() - started
    return {
        "predictions": done,
        "seconds": round(elapsed, 2),
        "per_second": round(done / elapsed),
        "p50_ms": round(percentile(latencies, 50), 3),
        "p99_ms": round(percentile(latencies, 99), 3),
    }


def main() -> None:
    personas = list(load_personas(SHARED_OPERA / "personas.jsonl"))
    brain = EmbeddedBrain()
    html = sample_page("search_results.html")
    t0 = time.perf_counter()
    observation = parse_page(html)
    parse_ms = (time.perf_counter() - t0) * 1000
    page = rate(brain, contexts(personas, observation))
    page_free = rate(brain, contexts(personas, EMPTY_OBSERVATION))
    write_result(
        "embedded_speed",
        {
            "page": {
                "bytes": len(html.encode()),
                "candidates": len(observation.candidates),
                "parse_ms": round(parse_ms, 1),
                **page,
                "target_per_second": 500,
            },
            "page_free": {**page_free, "target_per_second": 2000},
            "personas": len(personas),
            "process": "one process, one thread, brain.decide_sync",
        },
    )


if __name__ == "__main__":
    main()
