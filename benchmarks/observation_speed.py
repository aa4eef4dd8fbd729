"""Parse time of OPeRA simplified HTML: the ~100 KB sample page and a ~600 KB page (the OPeRA maximum is 626K).
Writes benchmarks/results/observation_speed.json. Target (issue 2): a 600 KB page in well under 100 ms.
Run: .venv/bin/python benchmarks/observation_speed.py
"""

from __future__ import annotations

import time

from _common import percentile, write_result

from agent.page.parse import parse_page
from agent.sample_pages import sample_page


def page_600kb() -> str:
    """The sample results page with its result grid repeated under distinct names, to about 600 KB."""
    html = sample_page("search_results.html")
    grid = html.split('<div class="s-main-slot">', 1)[1].rsplit("</body>", 1)[0]
    extra = "".join(grid.replace('name="search_results.', f'name="more_{i}.search_results.') for i in range(5))
    return html.replace("</body></html>", extra + "</body></html>")


def measure(html: str, runs: int = 50) -> dict:
    times, candidates = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        candidates = len(parse_page(html).candidates)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "bytes": len(html.encode()),
        "candidates": candidates,
        "p50_ms": round(percentile(times, 50), 2),
        "p95_ms": round(percentile(times, 95), 2),
    }


if __name__ == "__main__":
    write_result(
        "observation_speed",
        {
            "page_100kb": measure(sample_page("search_results.html")),
            "page_600kb": measure(page_600kb()),
            "target_600kb_ms": 100,
        },
    )
