"""What the decision export costs an experiment. Writes benchmarks/results/decision_export.json.

The embedded brain's bulk path on the ~97 KB search-results page, two variants (B adds a deal banner), real
OPeRA personas, each twin given its five memories as the store would hold them (personas/memory_texts.py, the
first five: recall is not what is timed here). Timed:

1. the run with a DecisionRecord per step (the page reference, the memories, the evidence with every driver in
   words), against the same run with the records left out (the runner as before the export), same seeds;
2. writing the export as the run hands the samples out (decisions.jsonl, the two pages once), and the Parquet
   file at the end; file sizes and rows.

Personas: OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0).
Run: .venv/bin/python benchmarks/decision_export.py [--personas 50] [--instances 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _common import SHARED_OPERA, write_result

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from agent.brains.embedded import EmbeddedBrain
from agent.experiments import runner
from agent.experiments.spec import ExperimentSpec
from agent.exports.experiment_export import ExperimentExport
from agent.sample_pages import sample_page
from personas.memory_texts import persona_memory_texts
from personas.memory_types import Memory
from personas.sources import load_personas

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


class FirstMemories:
    """A memory source giving each person their first k memory texts (what recall would return, roughly)."""

    def __init__(self, personas) -> None:
        self.memories = {
            p.id: [
                Memory(id=f"{p.id}:{i:05d}", persona_id=p.id, kind=kind, text=text)
                for i, (kind, text) in enumerate(persona_memory_texts(p))
            ]
            for p in personas
        }

    def recall(self, persona_id: str, query: str, k: int = 5) -> list[Memory]:
        return self.memories[persona_id][:k]


def spec(ids: list[str], instances: int) -> ExperimentSpec:
    a = sample_page("search_results.html")
    marker = a.index('<div name="search_results')
    url = "https://www.amazon.com/s?k=usb+c+cable"
    return ExperimentSpec.model_validate(
        {
            "name": "export cost",
            "seed": 7,
            "samples_per_persona": instances,
            "history": HISTORY,
            "population": {"ids": ids},
            "max_predictions": 1_000_000,
            "variants": [
                {"name": "A", "page": {"simplified_html": a, "page_url": url}},
                {"name": "B", "page": {"simplified_html": a[:marker] + BANNER + a[marker:], "page_url": url}},
            ],
        }
    )


def without_records():
    """The runner as before the export: no DecisionRecord per step."""
    original_record, original_to_sample = runner._record, runner._to_sample
    runner._record = lambda *args, **kwargs: None
    runner._to_sample = lambda prepared, unit, steps, fallbacks=0, reached=None, decisions=None: original_to_sample(
        prepared, unit, steps, fallbacks, reached
    )
    return lambda: (setattr(runner, "_record", original_record), setattr(runner, "_to_sample", original_to_sample))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--personas", type=int, default=50)
    parser.add_argument("--instances", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    people = load_personas(SHARED_OPERA / "personas.jsonl")[: args.personas]
    memory = FirstMemories(people)
    experiment = spec([p.id for p in people], args.instances)
    prepared = runner.prepare(experiment, people, memory)
    brain = EmbeddedBrain()
    runner.run_experiment(prepared, embedded=brain)  # warm: page index, persona caches

    with_records, without = [], []
    for _ in range(args.repeats):  # interleaved, so a busy neighbour weighs on both alike
        started = time.perf_counter()
        outcome = runner.run_experiment(prepared, embedded=brain)
        with_records.append(time.perf_counter() - started)
        restore = without_records()
        try:
            started = time.perf_counter()
            bare = runner.run_experiment(prepared, embedded=brain)
            without.append(time.perf_counter() - started)
        finally:
            restore()
    assert [s.model_dump() for s in bare.samples] == [s.model_dump() for s in outcome.samples]  # same run
    predictions = sum(s.steps for s in outcome.samples)

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        started = time.perf_counter()
        export = ExperimentExport(directory, prepared, run_id="bench")
        for start in range(0, len(outcome.samples), runner.FLUSH_EVERY):  # as the run hands them out
            export.add(outcome.samples[start : start + runner.FLUSH_EVERY])
        jsonl_s = time.perf_counter() - started
        started = time.perf_counter()
        summary = export.finish(outcome.samples)
        parquet_s = time.perf_counter() - started
        started = time.perf_counter()  # again: the first write in a process also loads the Parquet writer
        export.finish(outcome.samples)
        parquet_again_s = time.perf_counter() - started
        jsonl_bytes = (directory / "decisions.jsonl").stat().st_size
        parquet_bytes = summary.path.stat().st_size
        pages = sorted(p.stat().st_size for p in (directory / "pages").iterdir())

    best_with, best_without = min(with_records), min(without)
    write_result(
        "decision_export",
        {
            "personas": len(people),
            "instances": args.instances,
            "variants": 2,
            "samples": len(outcome.samples),
            "predictions": predictions,
            "repeats": args.repeats,
            "run_with_records_s": [round(t, 3) for t in with_records],
            "run_without_records_s": [round(t, 3) for t in without],
            "ms_per_prediction_with_records": round(best_with / predictions * 1000, 4),
            "ms_per_prediction_without_records": round(best_without / predictions * 1000, 4),
            "record_overhead_ms_per_prediction": round((best_with - best_without) / predictions * 1000, 4),
            "write_jsonl_and_pages_s": round(jsonl_s, 3),
            "write_parquet_s": round(parquet_s, 3),
            "write_parquet_again_s": round(parquet_again_s, 3),
            "rows": summary.rows,
            "jsonl_bytes": jsonl_bytes,
            "parquet_bytes": parquet_bytes,
            "pages_stored": len(pages),
            "page_bytes": pages,
            "note": "best of the repeats; the 2-core machine is shared with other work",
        },
    )


if __name__ == "__main__":
    main()
