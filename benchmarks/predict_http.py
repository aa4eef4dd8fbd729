"""Embedded /predict over real HTTP: warm p50/p95 on a 100 KB page with 10 history steps, recall p95,
service resident memory and start-to-ready time. Writes benchmarks/results/predict_http.json.

Targets (issue 2): p50 <= 50 ms, p95 <= 150 ms, recall p95 <= 20 ms, RSS <= 1.2 GB, ready <= 20 s.
Run: .venv/bin/python benchmarks/predict_http.py [--requests 300]
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time

import httpx
from _common import SHARED_OPERA, percentile, write_result

from agent.sample_pages import sample_page
from personas.open_store import open_memory_store
from tests.support.service_process import ServiceProcess

HISTORY = [
    {
        "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
        "rationale": "I need a longer cable.",
    },
    {"action": {"type": "click", "name": "nav_bar.search_button"}},
    {"action": {"type": "click", "name": "refinements.brand.anker"}},
    {"action": {"type": "click", "name": "search_results.anker_usb_c_cable_6ft.product_name"}},
    {"action": {"type": "click", "name": "product_options.size.button_list.6_ft"}},
    {"action": {"type": "click", "name": "reviews.popover.review_images.next"}},
    {"action": {"type": "click", "name": "reviews.popover.review_images.next"}},
    {"action": {"type": "click", "name": "reviews.popover.close"}},
    {"action": {"type": "click", "name": "nav_bar.homepage"}},
    {"action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable 10ft braided"}},
]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    csv.field_size_limit(10**9)
    with open(SHARED_OPERA / "users_sample.csv", newline="") as users:
        rows = list(csv.DictReader(users))
    html = sample_page("search_results.html")
    with tempfile.TemporaryDirectory() as data_dir, ServiceProcess({"TWINSIM_DATA_DIR": data_dir}) as service:
        ready_s = service.ready_after_s
        with httpx.Client(base_url=service.url, timeout=30) as client:
            for row in rows:
                client.post("/personas", json=row).raise_for_status()
            body = {
                "persona_id": rows[0]["user_id"],
                "page": {"simplified_html": html, "url": "https://www.amazon.com/s?k=usb+c+cable"},
                "history": HISTORY,
            }
            for _ in range(20):  # warm up
                client.post("/predict", json=body).raise_for_status()
            latencies, server_ms = [], []
            for _ in range(args.requests):
                started = time.perf_counter()
                response = client.post("/predict", json=body)
                latencies.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
                server_ms.append(response.json()["latency_ms"])
            recall = []
            queries = ["do I read reviews", "cheap usb cable", "Prime delivery", "what I do for work", "brands I like"]
            for i in range(200):
                started = time.perf_counter()
                client.get(
                    f"/personas/{rows[0]['user_id']}/memories", params={"q": f"{queries[i % 5]} {i}", "k": 5}
                ).raise_for_status()
                recall.append((time.perf_counter() - started) * 1000)
        memory = rss_mb(service.pid)
        service.stop()
        store = open_memory_store(path=f"{data_dir}/chroma")
        store.recall(rows[0]["user_id"], "warm up", k=5)
        in_process = []
        for i in range(200):
            started = time.perf_counter()
            store.recall(rows[0]["user_id"], f"{queries[i % 5]} {i} in process", k=5)
            in_process.append((time.perf_counter() - started) * 1000)
    write_result(
        "predict_http",
        {
            "page_bytes": len(html.encode()),
            "history_steps": len(HISTORY),
            "requests": args.requests,
            "predict_ms": {
                "p50": round(percentile(latencies, 50), 2),
                "p95": round(percentile(latencies, 95), 2),
                "max": round(max(latencies), 2),
            },
            "predict_server_graph_ms": {
                "p50": round(percentile(server_ms, 50), 2),
                "p95": round(percentile(server_ms, 95), 2),
            },
            "recall_ms": {
                "p50": round(percentile(in_process, 50), 2),
                "p95": round(percentile(in_process, 95), 2),
                "note": "MemoryStore.recall in process: embedding of a new query + Chroma query, k=5",
            },
            "recall_http_ms": {
                "p50": round(percentile(recall, 50), 2),
                "p95": round(percentile(recall, 95), 2),
                "note": "GET /personas/{id}/memories?q=...: HTTP + embedding of a new query + Chroma query",
            },
            "service_rss_mb": round(memory, 1),
            "start_to_ready_s": round(ready_s, 2),
            "targets": {
                "predict_p50_ms": 50,
                "predict_p95_ms": 150,
                "recall_p95_ms": 20,
                "rss_mb": 1228.8,
                "ready_s": 20,
            },
        },
    )


if __name__ == "__main__":
    main()
