"""A/B experiment speed. Writes benchmarks/results/experiment_speed.json.

1. Embedded brain: 1,000 persona-predictions per variant (50 real OPeRA personas x 20 seeded instances) on the
   ~97 KB search-results page, two variants (B adds a deal banner): wall time of preparing (parsing both pages,
   recalling memories per persona and page from a real Chroma store) plus running every twin. Target < 10 s.
   The statistics and the rationale themes are timed separately (themes embed every distinct rationale).
2. LLM brain overhead per prediction: the same kind of run through the full graph (prompt, litellm, HTTP,
   parsing, grounding) against the zero-latency OpenAI-compatible server of tests/support on loopback, next
   to the embedded brain through the same graph, so the difference is what the LLM path itself costs.

Personas: OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0).
Run: .venv/bin/python benchmarks/experiment_speed.py [--data-dir DIR] (a DIR that already holds the personas
skips the import, which takes minutes on a busy 2-core machine and is not part of any timing).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from _common import SHARED_OPERA, write_result

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from agent.brains.embedded import EmbeddedBrain
from agent.experiments.prepared import prepare
from agent.experiments.runner import personas_from, run_experiment
from agent.experiments.spec import ExperimentSpec
from agent.experiments.statistics import analyse
from agent.experiments.themes import rationale_themes
from agent.experiments.unit_loop import run_unit_graph
from agent.graph import TwinGraph
from agent.llm.offline_litellm import load_litellm
from agent.sample_pages import sample_page
from personas.open_store import open_memory_store
from personas.sources import load_personas
from service.container import build_brains, build_llm_client
from service.settings import Settings
from tests.support.openai_server import OpenAICompatibleServer

SEARCH_URL = "https://www.amazon.com/s?k=usb+c+cable"
BANNER = (
    '<div name="deal_banner"><strong>Deal of the day: 25% off Anker cables, FREE delivery</strong>'
    '<a name="deal_banner.product_name">Anker USB C Cable, 6ft, 2-Pack</a>'
    '<button name="deal_banner.add_to_cart">Add to Cart</button></div>'
)
HISTORY = [
    {
        "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
        "rationale": "My old charging cable frayed.",
    },
    {"action": {"type": "click", "name": "nav_bar.search_button"}},
]


def pages() -> tuple[str, str]:
    a = sample_page("search_results.html")
    marker = a.index('<div name="search_results')
    return a, a[:marker] + BANNER + a[marker:]


async def _through_graph(prepared, graph) -> list:
    return [(await run_unit_graph(prepared, graph, unit))[0] for unit in prepared.units()]


def spec(persona_ids: list[str], instances: int, brain: str = "embedded", model: str | None = None) -> ExperimentSpec:
    a, b = pages()
    return ExperimentSpec.model_validate(
        {
            "name": "speed",
            "brain": brain,
            "model": model,
            "seed": 1,
            "samples_per_persona": instances,
            "variants": [
                {"name": "A", "page": {"simplified_html": a, "page_url": SEARCH_URL}},
                {"name": "B", "page": {"simplified_html": b, "page_url": SEARCH_URL}},
            ],
            "population": {"ids": persona_ids},
            "history": HISTORY,
            "targets": ["deal_banner"],
            "concurrency": 8,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--personas", type=int, default=50)
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--llm-personas", type=int, default=25)
    parser.add_argument("--llm-instances", type=int, default=2)
    args = parser.parse_args()

    temp = tempfile.TemporaryDirectory() if args.data_dir is None else None
    data_dir = Path(temp.name) if temp else args.data_dir
    store = open_memory_store(path=data_dir / "chroma")
    people = load_personas(SHARED_OPERA / "personas.jsonl")[: args.personas]
    started = time.perf_counter()
    stored = set(store.persona_ids())
    for persona in people:
        if persona.id not in stored:
            store.put_persona(persona)
    import_s = time.perf_counter() - started
    store.embedder.embed(["warm up"])
    ids = sorted(p.id for p in people)
    brain = EmbeddedBrain()

    # 1. embedded, bulk path ------------------------------------------------------------------------------------
    experiment = spec(ids, args.instances)
    pool = personas_from(store, ids)
    started = time.perf_counter()
    prepared = prepare(experiment, pool, store)
    prepare_s = time.perf_counter() - started
    outcome = run_experiment(prepared, embedded=brain)
    total_s = time.perf_counter() - started
    run_s = total_s - prepare_s
    predictions = sum(s.steps for s in outcome.samples)
    started = time.perf_counter()  # the first analysis in a process also imports scipy and statsmodels
    analyse(outcome.samples, experiment.variant_names, targets=experiment.targets, seed=1)
    analysis_first_s = time.perf_counter() - started
    started = time.perf_counter()
    analysis = analyse(outcome.samples, experiment.variant_names, targets=experiment.targets, seed=1)
    analysis_s = time.perf_counter() - started
    started = time.perf_counter()
    themes = rationale_themes(outcome.samples, store.embedder.embed, seed=1)
    themes_s = time.perf_counter() - started
    distinct_rationales = len({s.rationale for s in outcome.samples})
    rates = {v: {k: round(r["rate"], 4) for k, r in d["rates"].items()} for v, d in analysis["variants"].items()}

    # 2. graph path: embedded vs llm on a zero-latency loopback server ------------------------------------------
    llm_ids = ids[: args.llm_personas]
    embedded_graph = TwinGraph({"embedded": brain}, memory=store)
    graph_spec = spec(llm_ids, args.llm_instances)
    graph_prepared = prepare(graph_spec, personas_from(store, llm_ids), store)
    started = time.perf_counter()  # each unit through the whole graph, as experiments do not (bulk is above)
    graph_samples = asyncio.run(_through_graph(graph_prepared, embedded_graph))
    graph_embedded_s = time.perf_counter() - started
    graph_predictions = sum(s.steps for s in graph_samples)
    started = (
        time.perf_counter()
    )  # litellm loads on the first model call (agent/llm/offline_litellm.py): not timed below
    load_litellm()
    litellm_import_s = time.perf_counter() - started
    with OpenAICompatibleServer(record_requests=False) as server:
        settings = Settings(data_dir=data_dir, llm_api_base=server.base_url, llm_concurrency=8, llm_retries=0)
        llm_graph = TwinGraph(build_brains(settings, build_llm_client(settings)), memory=store)
        llm_spec = spec(llm_ids, args.llm_instances, brain="llm", model="openai/twin-test")
        llm_prepared = prepare(llm_spec, personas_from(store, llm_ids), store)
        started = time.perf_counter()
        llm_outcome = run_experiment(llm_prepared, graph=llm_graph)
        llm_s = time.perf_counter() - started
        served = server.completions_served
    llm_predictions = sum(s.steps for s in llm_outcome.samples)

    per_embedded_graph = graph_embedded_s / graph_predictions * 1000
    per_llm = llm_s / llm_predictions * 1000
    write_result(
        "experiment_speed",
        {
            "page_bytes": len(pages()[0].encode()),
            "embedded_bulk": {
                "personas": len(prepared.personas),
                "instances": args.instances,
                "variants": 2,
                "predictions": predictions,
                "predictions_per_variant": predictions // 2,
                "wall_s": round(total_s, 3),
                "prepare_s": round(prepare_s, 3),
                "run_s": round(run_s, 3),
                "ms_per_prediction": round(total_s / predictions * 1000, 3),
                "target_wall_s": 10.0,
                "meets_target": total_s < 10.0,
                "analysis_s": round(analysis_s, 3),
                "analysis_first_in_process_s": round(analysis_first_s, 3),
                "prepare_run_analysis_s": round(total_s + analysis_s, 3),
                "prepare_run_analysis_cold_process_s": round(total_s + analysis_first_s, 3),
                "themes_s": round(themes_s, 3),
                "distinct_rationales": distinct_rationales,
                "rates": rates,
                "themes_variants": sorted(themes.get("variants", {})),
            },
            "graph_path": {
                "personas": len(llm_ids),
                "instances": args.llm_instances,
                "concurrency": 8,
                "embedded_predictions": graph_predictions,
                "embedded_wall_s": round(graph_embedded_s, 3),
                "embedded_ms_per_prediction": round(per_embedded_graph, 3),
                "llm_predictions": llm_predictions,
                "llm_calls_served": served,
                "llm_wall_s": round(llm_s, 3),
                "llm_ms_per_prediction": round(per_llm, 3),
                "llm_overhead_ms_per_prediction": round(per_llm - per_embedded_graph, 3),
                "server": "tests/support/openai_server.py, zero latency, 127.0.0.1, litellm openai/twin-test",
                "litellm_import_s_untimed": round(litellm_import_s, 2),
            },
            "persona_import_s_untimed": round(import_s, 1),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "note": "2-core machine shared with other engineers; load_average_1m says how busy it was.",
        },
    )
    if temp:
        temp.cleanup()


if __name__ == "__main__":
    main()
