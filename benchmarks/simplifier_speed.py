"""Raw-HTML simplifier on the real amazon.com search results page: time, sizes, share of products kept.
Writes benchmarks/results/simplifier_speed.json.

Targets (issue): >= 90% of `div[data-component-type="s-search-result"]` results present with a name and a
price, search box and button named as OPeRA, output <= 10% of the input size, under 300 ms.
Also times the hand-written product/cart fixtures and the generic fallback on the same real page.
Run: .venv/bin/python benchmarks/simplifier_speed.py [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import REPO, SHARED_OPERA, percentile, write_result
from selectolax.lexbor import LexborHTMLParser

from agent.page.simplifier import simplify_html

REAL_PAGE = SHARED_OPERA.parent / "pages" / "amazon_search_results.html"
FIXTURES = REPO / "tests" / "fixtures" / "raw_pages"


def timed(raw: str, url: str | None, runs: int, **kwargs) -> tuple[list[float], object]:
    simplify_html(raw, url, **kwargs)  # warm-up: imports, selector compilation
    times, page = [], None
    for _ in range(runs):
        start = time.perf_counter()
        page = simplify_html(raw, url, **kwargs)
        times.append((time.perf_counter() - start) * 1000)
    return times, page


def summary(times: list[float]) -> dict:
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(percentile(times, 95), 2),
        "max_ms": round(max(times), 2),
    }


def products_found(raw: str, simplified: str) -> dict:
    """Results of the raw page whose title and price both come out named, matched in page order."""
    raw_results = LexborHTMLParser(raw).css('div[data-component-type="s-search-result"]')
    out_results = LexborHTMLParser(simplified).css("div.search-result")
    with_name = with_name_and_price = raw_with_price = 0
    for raw_result, out_result in zip(raw_results, out_results, strict=True):
        container = out_result.attributes.get("name") or ""
        title = " ".join((raw_result.css_first("h2").text() if raw_result.css_first("h2") else "").split())
        name = out_result.css_first(f'[name="{container}.product_name"]')
        price = out_result.css_first(f'[name="{container}.product_price"]')
        raw_price = raw_result.css_first("span.a-price > span.a-offscreen")
        raw_with_price += raw_price is not None
        if name is not None and " ".join(name.text().split()) == title:
            with_name += 1
            if price is not None and raw_price is not None and price.text().strip() == raw_price.text().strip():
                with_name_and_price += 1
    total = len(raw_results)
    return {
        "results_in_raw_page": total,
        "raw_results_with_a_price": raw_with_price,
        "with_name": with_name,
        "with_name_and_price": with_name_and_price,
        "share_with_name_and_price": round(with_name_and_price / total, 4) if total else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    if not REAL_PAGE.exists():
        raise SystemExit(
            f"real page missing at {REAL_PAGE} (set TWINSIM_OPERA_DATA or TWINSIM_SHARED_DIR: agent/opera_data.py)"
        )
    raw = REAL_PAGE.read_text(encoding="utf-8", errors="replace")
    url = "https://www.amazon.com/s?k=red+basketball+shoes"

    times, page = timed(raw, url, args.runs)
    out = LexborHTMLParser(page.html)
    search_input, search_button = (
        out.css_first('[name="nav_bar.search_input"]'),
        out.css_first('[name="nav_bar.search_button"]'),
    )
    real = {
        "recipe": page.recipe,
        "input_chars": len(raw),
        "input_bytes": len(raw.encode("utf-8")),
        "output_chars": len(page.html),
        "output_bytes": len(page.html.encode("utf-8")),
        "output_share_of_input": round(len(page.html.encode("utf-8")) / len(raw.encode("utf-8")), 4),
        "names": len(page.names),
        "search_input_named": search_input is not None and search_input.tag == "input",
        "search_button_named": search_button is not None,
        **products_found(raw, page.html),
        **summary(times),
    }
    generic_times, generic_page = timed(raw, None, max(5, args.runs // 3), recipes=())
    fixtures = {}
    for name in (
        "amazon_product.html",
        "amazon_product_2019.html",
        "amazon_product_2024.html",
        "amazon_cart.html",
        "generic_shop.html",
    ):
        fixture_raw = (FIXTURES / name).read_text(encoding="utf-8")
        fixture_times, fixture_page = timed(fixture_raw, None, args.runs)
        fixtures[name] = {
            "recipe": fixture_page.recipe,
            "input_chars": len(fixture_raw),
            "output_chars": len(fixture_page.html),
            "names": len(fixture_page.names),
            **summary(fixture_times),
        }
    write_result(
        "simplifier_speed",
        {
            "runs": args.runs,
            "real_search_page": real,
            "generic_fallback_on_real_search_page": {
                "output_chars": len(generic_page.html),
                "output_share_of_input": round(len(generic_page.html) / len(raw), 4),
                "names": len(generic_page.names),
                **summary(generic_times),
            },
            "fixtures": fixtures,
            "targets": {"share_with_name_and_price": ">= 0.90", "output_share_of_input": "<= 0.10", "p50_ms": "< 300"},
        },
    )


if __name__ == "__main__":
    main()
