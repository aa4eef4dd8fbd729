"""Time to read page facts (agent/page/facts.read_facts) from an already parsed page: the 97 KB sample search
page (48 results) and the sample product page. parse_page pays this on every page, so it must stay small
beside the parse itself. Writes benchmarks/results/page_facts_speed.json.
Run: .venv/bin/python benchmarks/page_facts_speed.py
"""

from __future__ import annotations

import time

from _common import percentile, write_result
from selectolax.lexbor import LexborHTMLParser

from agent.page.facts import read_facts
from agent.page.parse import parse_page
from agent.sample_pages import sample_page


def measure(html: str, runs: int = 100) -> dict:
    """read_facts alone (it consumes its tree, so each run gets a freshly parsed one, parsed outside the clock)."""
    observation = parse_page(html)
    times = []
    for _ in range(runs):
        tree = LexborHTMLParser(html)
        named = tree.css("[name]")
        started = time.perf_counter()
        facts = read_facts(tree, named, observation.by_name, observation.page_type, observation.title)
        times.append((time.perf_counter() - started) * 1000)
    parse_times = []
    for _ in range(runs // 2):
        started = time.perf_counter()
        parse_page(html)
        parse_times.append((time.perf_counter() - started) * 1000)
    return {
        "bytes": len(html.encode()),
        "products": len(facts.products),
        "facts_p50_ms": round(percentile(times, 50), 3),
        "facts_p95_ms": round(percentile(times, 95), 3),
        "parse_page_p50_ms": round(percentile(parse_times, 50), 3),
    }


if __name__ == "__main__":
    write_result(
        "page_facts_speed",
        {
            "search_results": measure(sample_page("search_results.html")),
            "product_page": measure(sample_page("product_page.html")),
        },
    )
