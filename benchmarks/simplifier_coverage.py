"""The simplifier on the corpus of real saved shop pages (corpus/): key-element coverage, time and output size.
Writes benchmarks/results/simplifier_coverage.json.

Coverage: of the key elements the team annotated on each raw page (corpus/manifest.json), how many come out of
the simplifier, checked as tests/test_simplifier_coverage.py does (agent/page/simplifier/coverage.py). Time: p50 and
p95 of `simplify_html` on the raw page (no URL, no marking), after one warm-up. Size: output characters and their
share of the input.
Run: .venv/bin/python benchmarks/simplifier_coverage.py [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from _common import REPO, percentile, write_result

from agent.page.simplifier import simplify_html
from agent.page.simplifier.coverage import page_coverage

CORPUS = REPO / "corpus"


def timed(raw: str, runs: int) -> tuple[list[float], str]:
    simplify_html(raw)  # warm-up: selector compilation, imports
    times, html = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        html = simplify_html(raw).html
        times.append((time.perf_counter() - start) * 1000)
    return times, html


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    load_before = os.getloadavg()[0]
    pages, annotated, covered = [], 0, 0
    for entry in manifest:
        raw = (CORPUS / entry["file"]).read_text(encoding="utf-8")
        truth = entry["ground_truth"]
        result = page_coverage(
            raw, truth["key_elements"], entry["site"].startswith("amazon."), entry["file"], facts=truth
        )
        times, html = timed(raw, args.runs)
        annotated += len(result.kinds)
        covered += result.covered
        pages.append(
            {
                "file": entry["file"],
                "site": entry["site"],
                "kind": entry["kind"],
                "recipe": result.recipe,
                "key_elements": len(result.kinds),
                "covered": result.covered,
                "coverage": round(result.share, 4) if result.share is not None else None,
                "missing": [
                    {"kind": r.kind, "came_out": r.came_out, "annotated": r.annotated}
                    for r in result.kinds
                    if not r.covered
                ],
                "input_chars": len(raw),
                "output_chars": len(html),
                "output_share_of_input": round(len(html) / len(raw), 4),
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(percentile(times, 95), 2),
            }
        )
    write_result(
        "simplifier_coverage",
        {
            "runs": args.runs,
            "pages": pages,
            "overall": {
                "pages": len(pages),
                "key_elements": annotated,
                "covered": covered,
                "coverage": round(covered / annotated, 4),
                "p50_ms_median_over_pages": round(statistics.median(p["p50_ms"] for p in pages), 2),
                "p95_ms_max_over_pages": max(p["p95_ms"] for p in pages),
                "output_chars_total": sum(p["output_chars"] for p in pages),
                "input_chars_total": sum(p["input_chars"] for p in pages),
            },
            "load_average_1m_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "target": {"coverage": ">= 0.95"},
        },
    )


if __name__ == "__main__":
    main()
