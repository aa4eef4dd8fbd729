"""Bounded load test of /predict (embedded brain) against a real uvicorn process on loopback.

5,000 requests, 32 in flight (httpx async client), over 10 real OPeRA personas and the three sample pages
with a short history; every response is checked. Records zero-5xx, p50/p95/p99 latency, throughput, and
cross-checks the count against the service's own Prometheus /metrics. Writes benchmarks/results/load_test.json.
Persona data: OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0).

Run: .venv/bin/python benchmarks/load_test.py [--requests 5000] [--concurrency 32]
Traffic goes only to 127.0.0.1; the run stops by itself after --requests or --deadline-s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from collections import Counter

import httpx
from _common import SHARED_OPERA, percentile, write_result
from prometheus_client.parser import text_string_to_metric_families

from agent.sample_pages import sample_page
from tests.support.service_process import ServiceProcess

PAGES = [
    ("search_results.html", "https://www.amazon.com/s?k=usb+c+cable"),
    ("product_page.html", "https://www.amazon.com/dp/B0EXAMPLE"),
    ("cart.html", "https://www.amazon.com/cart"),
]
HISTORY = [
    {
        "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
        "rationale": "I need a longer cable.",
    },
    {"action": {"type": "click", "name": "nav_bar.search_button"}},
]


def persona_records(n: int) -> list[dict]:
    import json

    with open(SHARED_OPERA / "personas.jsonl") as handle:
        return [json.loads(line) for line, _ in zip(handle, range(n), strict=False)]


async def run_load(url: str, bodies: list[dict], total: int, concurrency: int, deadline_s: float) -> dict:
    latencies: list[float] = []
    statuses: Counter = Counter()
    errors: Counter = Counter()
    next_index = 0
    stop_at = time.monotonic() + deadline_s

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal next_index
        while next_index < total and time.monotonic() < stop_at:
            body = bodies[next_index % len(bodies)]
            next_index += 1
            started = time.perf_counter()
            try:
                response = await client.post("/predict", json=body)
                statuses[response.status_code] += 1
                if response.status_code == 200 and "action" not in response.json():
                    errors["200 without an action"] += 1
            except httpx.HTTPError as error:
                errors[type(error).__name__] += 1
                continue
            latencies.append((time.perf_counter() - started) * 1000)

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        started = time.perf_counter()
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
        wall_s = time.perf_counter() - started
    return {"latencies": latencies, "statuses": statuses, "errors": errors, "wall_s": wall_s, "sent": next_index}


def served_predictions(url: str) -> float:
    text = httpx.get(f"{url}/metrics", timeout=30).text
    return sum(
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "twinsim_predictions_total"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--personas", type=int, default=10)
    parser.add_argument("--deadline-s", type=float, default=1200)
    args = parser.parse_args()
    records = persona_records(args.personas)
    pages = [(sample_page(name), url) for name, url in PAGES]
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as data_dir, ServiceProcess({"TWINSIM_DATA_DIR": data_dir}) as service:
        ids = [
            httpx.post(f"{service.url}/personas", json=r, timeout=120).raise_for_status().json()["id"] for r in records
        ]
        bodies = [
            {"persona_id": pid, "page": {"simplified_html": html, "url": url}, "history": HISTORY}
            for pid in ids
            for html, url in pages
        ]
        asyncio.run(run_load(service.url, bodies, 64, 8, 120))  # warm up (not counted)
        before = served_predictions(service.url)
        result = asyncio.run(run_load(service.url, bodies, args.requests, args.concurrency, args.deadline_s))
        counted = served_predictions(service.url) - before
        log_lines = sum(1 for line in service.output().splitlines() if '"twinsim.access"' in line)
    latencies, statuses = result["latencies"], result["statuses"]
    server_errors = sum(count for status, count in statuses.items() if status >= 500)
    write_result(
        "load_test",
        {
            "endpoint": "POST /predict, brain=embedded, real uvicorn process on 127.0.0.1 (1 worker), embedded Chroma",
            "requests": result["sent"],
            "concurrency": args.concurrency,
            "personas": len(ids),
            "pages": [n for n, _ in PAGES],
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "server_errors_5xx": server_errors,
            "client_errors": dict(result["errors"]),
            "latency_ms": {q: round(percentile(latencies, p), 2) for q, p in (("p50", 50), ("p95", 95), ("p99", 99))}
            | {"max": round(max(latencies), 2)},
            "throughput_rps": round(len(latencies) / result["wall_s"], 1),
            "wall_s": round(result["wall_s"], 1),
            "predictions_counted_by_metrics": counted,
            "access_log_lines": log_lines,
            "load_average_1m_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
            "note": "2 shared cores; other work ran on the machine at the same time (see load average)",
        },
    )
    if server_errors or result["errors"] or result["sent"] < args.requests:
        raise SystemExit(
            f"load test failed: {server_errors} 5xx, errors {dict(result['errors'])}, sent {result['sent']}"
        )


if __name__ == "__main__":
    main()
