"""Time to read a rendered page as a twin does (simplify + candidates + facts: `observe_page` on raw HTML), p50 and
p95 over real pages, and a repeat of the same page (the page cache keeps it free).

Pages: the development product pages of Zyte's product-extraction benchmark (`../shared/data/product-pages`, MIT,
Copyright (c) 2021 Zyte; 63 rendered pages of 31 shops, 35 KB to 1.6 MB) and the real 1.1 MB amazon.com results page.
With `--baseline REV` the same pages are read by the code at commit REV too, in the same run (a temporary git
worktree, one process each, alternating), so the machine's load weighs on both alike.

    .venv/bin/python benchmarks/page_read_speed.py [--runs 3] [--baseline 4cfd768]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO, percentile, write_result

PAGES = REPO.parent / "shared" / "data" / "product-pages"
SEARCH_PAGE = REPO.parent / "shared" / "data" / "pages" / "amazon_search_results.html"

# Run inside the tree being measured (this one or the baseline's): reads every page `runs` times, prints JSON.
_MEASURE = r"""
import gzip, json, sys, time
from pathlib import Path
try:
    from agent.page.read_page import observe_page, _read_page_cached
except ImportError:  # before page reading had its own package
    from agent.observe_page import observe_page, _read_page_cached
pages, runs = json.loads(sys.argv[1]), int(sys.argv[2])
observe_page("<html><body><h1>warm</h1><p>$1.00</p></body></html>", simplified=False)  # imports out of the way
out = []
for path, url in pages:
    raw = Path(path).read_bytes()
    html = (gzip.decompress(raw) if path.endswith(".gz") else raw).decode("utf-8", "replace")
    times = []
    for _ in range(runs):
        _read_page_cached.cache_clear()
        started = time.perf_counter()
        observe_page(html, url=url, simplified=False, max_bytes=20_000_000)
        times.append(time.perf_counter() - started)
    started = time.perf_counter()
    observe_page(html, url=url, simplified=False, max_bytes=20_000_000)
    out.append({"page": Path(path).name, "bytes": len(html.encode()), "seconds": min(times),
                "repeat_seconds": time.perf_counter() - started})
print(json.dumps(out))
"""


def _pages() -> list[tuple[str, str | None]]:
    truth = json.loads((PAGES / "ground-truth.json").read_text())
    pages = [(str(PAGES / "html" / f"{key}.html.gz"), value.get("url")) for key, value in sorted(truth.items())]
    if SEARCH_PAGE.exists():
        pages.append((str(SEARCH_PAGE), "https://www.amazon.com/s?k=usb+c+cable"))
    return pages


def measure(tree: Path, pages: list[tuple[str, str | None]], runs: int) -> list[dict]:
    done = subprocess.run(
        [str(REPO / ".venv" / "bin" / "python"), "-c", _MEASURE, json.dumps(pages), str(runs)],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(tree)},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(rows: list[dict]) -> dict:
    seconds = [r["seconds"] for r in rows]
    big = [r["seconds"] for r in rows if r["bytes"] >= 1_000_000]
    return {
        "pages": len(rows),
        "p50_s": round(percentile(seconds, 50), 4),
        "p95_s": round(percentile(seconds, 95), 4),
        "max_s": round(max(seconds), 4),
        "pages_over_1mb": len(big),
        "over_1mb_p50_s": round(percentile(big, 50), 4) if big else None,
        "over_1mb_max_s": round(max(big), 4) if big else None,
        "repeat_p50_ms": round(1000 * percentile([r["repeat_seconds"] for r in rows], 50), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="reads of each page; the fastest counts")
    parser.add_argument("--baseline", help="a commit to measure beside this tree, in the same run")
    args = parser.parse_args()
    pages = _pages()
    result: dict = {"runs": args.runs, "load_before": Path("/proc/loadavg").read_text().split()[:3]}
    if args.baseline:
        with tempfile.TemporaryDirectory() as folder:
            base = Path(folder) / "baseline"
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(base), args.baseline],
                cwd=REPO,
                check=True,
                capture_output=True,
            )
            try:
                now, before = measure(REPO, pages, args.runs), measure(base, pages, args.runs)
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=REPO, check=False)
        result["baseline"] = {"commit": args.baseline, **summary(before)}
        result["per_page_baseline"] = before
    else:
        now = measure(REPO, pages, args.runs)
    result["now"] = summary(now)
    result["per_page"] = now
    result["load_after"] = Path("/proc/loadavg").read_text().split()[:3]
    write_result("page_read_speed", result)


if __name__ == "__main__":
    sys.exit(main())
