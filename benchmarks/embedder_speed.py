"""The memory embedders side by side in one run: today's torch (sentence-transformers) and all-MiniLM-L6-v2 as ONNX
(fp32; int8 per tensor; int8 per channel; int8 per channel with the feed-forward output projections kept fp32), each
with 1 and 2 onnxruntime intra-op threads; torch with 2 (its default here) and 1 (torch.set_num_threads), measured
after the ONNX ones, one setting at a time. Writes benchmarks/results/embedder_speed.json.

- query latency: `embed([query])` of queries never embedded before, as recall_query builds them (agent/recall_query.py,
  the sample pages and shopping histories); the ONNX configurations take turns query by query, so load changes hit
  them alike;
  wall time p50/p95 and the process's CPU time p50 (all threads; it moves less with the machine's load);
- throughput: the distinct memory texts of the 52 OPeRA personas (personas/memory_texts.py plus the core profile:
  what put_persona embeds; an import embeds each distinct text once), in chunks of 40, taking turns as above; texts/s;
- agreement with the torch vectors: cosine per text over the memory texts and the queries (mean, min), and per
  persona the overlap of the top-5 memories recalled for a fixed set of queries (exact cosine ranking);
- cold start: a new process importing the embedder, loading it and embedding one text;
- recall as served: `MemoryStore.recall` (new query: embedding + Chroma, k=5) on a store of the 52 personas
  written by the embedder that serves (personas/onnx_export.py: DEFAULT_VARIANT; personas/embedder.py: DEFAULT_THREADS).
The 1-minute load average is recorded before and after: the machine has 2 cores shared with other work.

Run: .venv/bin/python benchmarks/embedder_speed.py [--queries 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from itertools import product

import numpy as np
from _common import REPO, SHARED_OPERA, percentile, write_result

from agent.actions import ClickAction, InputAction
from agent.history import Step
from agent.page.read_page import observe_page
from agent.recall_query import recall_query
from agent.sample_pages import sample_page
from personas.embedder import DEFAULT_THREADS, Embedder, TorchEmbedder
from personas.memory_texts import core_profile_text, persona_memory_texts
from personas.onnx_export import DEFAULT_VARIANT, VARIANTS, ensure_onnx
from personas.sources import load_personas

AGREEMENT_MIN_COSINE = 0.99  # every text's vector within this cosine of torch's (the minimum, not the mean)
QUERY_P50_TARGET_MS = 5.0
RECALL_P95_TARGET_MS = 10.0
TORCH = {"torch/2t": 2, "torch/1t": 1}  # 2: torch's own default here (one thread per core), as served until now
SEARCHES = [
    "usb c cable",
    "running shoes for women",
    "coffee maker",
    "dog food grain free",
    "laptop stand",
    "noise cancelling headphones",
    "kids rain boots",
    "air fryer",
    "protein powder vanilla",
    "office chair",
    "phone case iphone 15",
    "yoga mat thick",
    "led desk lamp",
    "water bottle insulated",
    "bluetooth speaker",
    "winter jacket men",
    "instant pot",
    "hiking backpack",
    "mechanical keyboard",
    "face moisturizer spf",
    "kitchen knife set",
    "baby wipes",
    "electric toothbrush",
    "board games for adults",
    "wireless mouse",
]
PAGES = [("search_results.html", "https://www.amazon.com/s?k={term}"), ("product_page.html", None), ("cart.html", None)]
RATIONALES = [
    None,
    "I want something that lasts and has good reviews.",
    "The cheaper one is good enough for me.",
    "I need it delivered before the weekend.",
]


def queries(count: int) -> list[str]:
    """Distinct recall queries as the twin builds them: a page in view after a search, with or without a reason."""
    observations = [observe_page(sample_page(name)) for name, _ in PAGES]
    made: list[str] = []
    for rationale, term, ((_, url), observation) in product(
        RATIONALES, SEARCHES, zip(PAGES, observations, strict=True)
    ):
        if url:
            observation = replace(observation, url=url.format(term=term.replace(" ", "+")))
        history = [
            Step(action=InputAction(type="input", name="nav_bar.search_input", text=term), rationale=rationale),
            Step(action=ClickAction(type="click", name="nav_bar.search_button")),
        ]
        made.append(recall_query(observation, history))
    if len(set(made)) < count:
        raise SystemExit(f"only {len(set(made))} distinct queries; asked for {count}")
    return list(dict.fromkeys(made))[:count]


def timed_ms(embed, texts) -> float:
    started = time.perf_counter()
    embed(texts)
    return (time.perf_counter() - started) * 1000


def cpu_and_wall_ms(embed, texts) -> tuple[float, float]:
    """The process's CPU time (every thread) and the wall time of one call: CPU time moves less with load."""
    cpu, wall = time.process_time(), time.perf_counter()
    embed(texts)
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def cold_start_s(code: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    return round(time.perf_counter() - started, 2)


def top5_overlap(reference: np.ndarray, other: np.ndarray, reference_q: np.ndarray, other_q: np.ndarray) -> float:
    """Mean share of the reference's top-5 memories that the other embedder also ranks top-5, over the queries."""
    k = min(5, len(reference))
    top_ref = np.argsort(-(reference_q @ reference.T), axis=1)[:, :k]
    top_other = np.argsort(-(other_q @ other.T), axis=1)[:, :k]
    return float(np.mean([len(set(a) & set(b)) / k for a, b in zip(top_ref, top_other, strict=True)]))


def recall_as_served(personas, query_texts: list[str]) -> dict:
    from personas.open_store import open_memory_store

    with tempfile.TemporaryDirectory() as folder:
        store = open_memory_store(path=f"{folder}/chroma")
        store.put_personas([(persona, False) for persona in personas])
        store.recall(personas[0].id, "warm up", k=5)
        times = []
        for i, query in enumerate(query_texts):
            started = time.perf_counter()
            store.recall(personas[i % len(personas)].id, query, k=5)
            times.append((time.perf_counter() - started) * 1000)
    return {
        "embedder": store.embedder.id,
        "queries": len(times),
        "p50_ms": round(percentile(times, 50), 2),
        "p95_ms": round(percentile(times, 95), 2),
        "target_p95_ms": RECALL_P95_TARGET_MS,
        "meets_target": percentile(times, 95) <= RECALL_P95_TARGET_MS,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--recall-only",
        action="store_true",
        help="only recall as served (the twin's own queries, 52 personas) -> recall_speed.json",
    )
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    if args.recall_only:
        personas = load_personas(SHARED_OPERA / "personas.jsonl")
        write_result(
            "recall_speed",
            {
                "recall_as_served": recall_as_served(personas, queries(args.queries + 24)[24:]),
                "load_average_1m_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            },
        )
        return

    personas = load_personas(SHARED_OPERA / "personas.jsonl")
    memory_texts = [[text for _, text in persona_memory_texts(p)] for p in personas]
    profiles = [core_profile_text(p) or p.id for p in personas]
    all_texts = [text for texts in memory_texts for text in texts] + profiles
    query_texts = queries(args.queries + 24)
    fixed_queries, new_queries = query_texts[:24], query_texts[24:]

    for variant in VARIANTS:
        ensure_onnx(variant)
    configs = {
        f"onnx-{variant}/{threads}t": Embedder(variant, threads=threads) for variant in VARIANTS for threads in (1, 2)
    }
    for embedder in configs.values():
        embedder.embed(["warm up", "a second, longer text to warm up with"])

    latency: dict[str, list[float]] = {name: [] for name in [*configs, *TORCH]}
    cpu: dict[str, list[float]] = {name: [] for name in latency}
    seconds = dict.fromkeys(latency, 0.0)
    distinct = list(dict.fromkeys(all_texts))  # model speed: no text twice (an import embeds each once too)

    def measure(embedders: dict) -> None:
        for query in new_queries:
            for name, embedder in embedders.items():
                cpu_ms, wall_ms = cpu_and_wall_ms(embedder.embed, [query])
                latency[name].append(wall_ms)
                cpu[name].append(cpu_ms)
        for start in range(0, len(distinct), 40):
            for name, embedder in embedders.items():
                seconds[name] += timed_ms(embedder.embed, distinct[start : start + 40]) / 1000

    measure(configs)  # the ONNX sessions take turns
    import torch

    torch_model = TorchEmbedder()
    for name, threads in TORCH.items():  # torch's thread pool is the process's: one setting at a time
        torch.set_num_threads(threads)
        torch_model.embed(["warm up", "a second, longer text to warm up with"])
        measure({name: torch_model})
    configs |= dict.fromkeys(TORCH, torch_model)

    reference = torch_model.embed(all_texts)
    reference_q = torch_model.embed(fixed_queries + new_queries)
    results = {}
    for name, embedder in configs.items():
        row = {
            "query_p50_ms": round(percentile(latency[name], 50), 2),
            "query_p95_ms": round(percentile(latency[name], 95), 2),
            "query_cpu_p50_ms": round(percentile(cpu[name], 50), 2),
            "texts_per_s": round(len(distinct) / seconds[name], 1),
        }
        if name.endswith("/1t"):  # the vectors do not depend on the thread count
            vectors = embedder.embed(all_texts)
            vectors_q = embedder.embed(fixed_queries + new_queries)
            cosine = np.concatenate([np.sum(vectors * reference, axis=1), np.sum(vectors_q * reference_q, axis=1)])
            overlaps, offset = [], 0
            for texts in memory_texts:
                rows = slice(offset, offset + len(texts))
                overlaps.append(top5_overlap(reference[rows], vectors[rows], reference_q[:24], vectors_q[:24]))
                offset += len(texts)
            row |= {
                "cosine_mean": round(float(cosine.mean()), 4),
                "cosine_min": round(float(cosine.min()), 4),
                "top5_overlap_mean": round(float(np.mean(overlaps)), 3),
                "top5_overlap_min_persona": round(float(np.min(overlaps)), 3),
                "meets_agreement": bool(cosine.min() >= AGREEMENT_MIN_COSINE),
            }
        results[name] = row

    cold = {"torch": cold_start_s("from personas.embedder import TorchEmbedder; TorchEmbedder().embed(['x'])")}
    for variant in ("fp32", DEFAULT_VARIANT):
        cold[f"onnx-{variant}"] = cold_start_s(
            f"from personas.embedder import Embedder; Embedder({variant!r}).embed(['x'])"
        )
    recall = recall_as_served(personas, new_queries)

    write_result(
        "embedder_speed",
        {
            "configs": results,
            "cold_start_s": cold,
            "recall_as_served": recall,
            "served_variant": DEFAULT_VARIANT,
            "served_threads": DEFAULT_THREADS,
            "texts": {
                "memory_texts": len(all_texts),
                "distinct_memory_texts": len(distinct),
                "personas": len(personas),
                "new_queries": len(new_queries),
                "fixed_queries_for_overlap": len(fixed_queries),
                "query_example": new_queries[0],
            },
            "agreement_rule": f"min cosine to torch over every memory text and query >= {AGREEMENT_MIN_COSINE}",
            "query_p50_target_ms": QUERY_P50_TARGET_MS,
            "load_average_1m_before": round(load_before, 2),
            "load_average_1m_after": round(os.getloadavg()[0], 2),
            "note": "one process; ONNX configurations taking turns, then torch; 2-core machine shared with other work",
        },
    )


if __name__ == "__main__":
    main()
