"""Product facts on real product pages of many shops, scored with the product-extraction benchmark's own metric,
beside the published systems' outputs for the same pages.

The pages are the development half of Zyte's product-extraction benchmark (`scrapinghub/product-extraction-benchmark`,
MIT, Copyright (c) 2021 Zyte), in `../shared/data/product-pages/`: real rendered product pages of 31 shops, a
ground truth per page, and the outputs of Zyte Automatic Extraction, Diffbot and extruct. Per page and attribute:
a true positive when the value read equals one of the ground-truth values (prices as decimals), a false positive
when it differs or the page has no value, a false negative when the page's value is not read (nothing read, or a
wrong value: a wrong value is both). Scored this way the published outputs give the figures the benchmark's
README states for this half (Zyte price F1 0.926, availability 0.952).

What a twin reads is the page's product (`Observation.facts.focus_product`) from `observe_page(html, url=...)`, the
same call the API makes for raw HTML: price, availability, and the page type (is it recognised as a product page?).
Availability is scored as the twin acts on it: the stock the page states (in stock, low stock: InStock; unavailable:
OutOfStock), else InStock where the page offers to buy the product and says nothing against it (`PageFacts.can_buy`);
`availability_stated` scores the stated stock alone.
Figures per currency and per source (structured data, meta, visible text) say where each fact came from.

    .venv/bin/python benchmarks/product_facts.py [--pages ../shared/data/product-pages] [--out product_facts]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter, defaultdict
from decimal import Decimal, InvalidOperation
from pathlib import Path

from _common import REPO, percentile, write_result

from agent.page.money import currency_code
from agent.page.read_page import observe_page

PAGES = REPO.parent / "shared" / "data" / "product-pages"
SYSTEMS = ("Zyte", "Diffbot", "extruct")


def _decimal(value: object) -> Decimal | None:
    try:
        return Decimal(str(value).strip()) if value not in (None, "") else None
    except InvalidOperation:
        return None


def _same(attribute: str, predicted: object, truths: list[str]) -> bool:
    if attribute == "price":
        got = _decimal(predicted)
        return got is not None and any(got == _decimal(t) for t in truths)
    return str(predicted) in truths


class Score:
    """True positives, false positives and false negatives of one attribute, the benchmark's way."""

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute
        self.tp = self.fp = self.fn = 0

    def add(self, predicted: object, truths: list[str]) -> str:
        if predicted in (None, ""):
            if truths:
                self.fn += 1
                return "fn"
            return "tn"
        if truths and _same(self.attribute, predicted, truths):
            self.tp += 1
            return "tp"
        self.fp += 1
        self.fn += bool(truths)
        return "fp"

    def figures(self) -> dict:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "precision": round(precision, 3),
            "recall": round(recall, 3),
            "f1": round(f1, 3),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


def score(attribute: str, pairs: list[tuple[object, list[str]]]) -> dict:
    total = Score(attribute)
    for predicted, truths in pairs:
        total.add(predicted, truths)
    return total.figures()


def _availability(value: str | None) -> str | None:
    return {"in_stock": "InStock", "low_stock": "InStock", "unavailable": "OutOfStock"}.get(value or "")


def read_pages(pages_dir: Path) -> list[dict]:
    """Each page read once by the twin's reader: what it found and how long it took."""
    truth = json.loads((pages_dir / "ground-truth.json").read_text())
    rows = []
    for key, expected in sorted(truth.items()):
        html = gzip.decompress((pages_dir / "html" / f"{key}.html.gz").read_bytes()).decode("utf-8", "replace")
        started = time.perf_counter()
        observation = observe_page(html, url=expected.get("url"), simplified=False, max_bytes=20_000_000)
        seconds = time.perf_counter() - started
        product = observation.facts.focus_product
        rows.append(
            {
                "page": key,
                "url": expected.get("url"),
                "bytes": len(html.encode()),
                "seconds": seconds,
                "page_type": observation.page_type,
                "price": None if product is None or product.price is None else f"{product.price:.2f}",
                "currency": product.currency if product is not None else None,
                "price_source": product.source_of("price") if product is not None else None,
                "availability": _availability(product.availability or ("in_stock" if product.buy_names else None))
                if product is not None
                else None,
                "availability_stated": _availability(product.availability) if product is not None else None,
                "availability_source": product.source_of("availability") if product is not None else None,
                "truth_price": expected.get("price", []),
                "truth_availability": expected.get("availability", []),
                "truth_currency": currency_code((expected.get("currency") or [""])[0].strip().rstrip("."))
                or (expected.get("currency") or [None])[0],
            }
        )
    return rows


def published(pages_dir: Path, truth: dict) -> dict:
    figures = {}
    for system in SYSTEMS:
        path = pages_dir / "published" / f"{system}.json"
        if not path.exists():
            continue
        outputs = json.loads(path.read_text())
        figures[system] = {
            attribute: score(
                attribute, [(outputs.get(k, {}).get(attribute), t.get(attribute, [])) for k, t in truth.items()]
            )
            for attribute in ("price", "availability")
        }
    return figures


def _by(rows: list[dict], key: str) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row[key]:
            groups[row[key]].append(row)
    return dict(groups)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=Path, default=PAGES)
    parser.add_argument("--out", default="product_facts")
    args = parser.parse_args()
    truth = json.loads((args.pages / "ground-truth.json").read_text())
    rows = read_pages(args.pages)
    by_currency: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_currency[row["truth_currency"] or "none"].append(row)
    result = {
        "pages": len(rows),
        "shops": len({r["url"].split("/")[2] for r in rows if r["url"]}),
        "source": "scrapinghub/product-extraction-benchmark (MIT, Copyright (c) 2021 Zyte), development half",
        "twinsim": {
            "price": score("price", [(r["price"], r["truth_price"]) for r in rows]),
            "availability": score("availability", [(r["availability"], r["truth_availability"]) for r in rows]),
            "availability_stated": score(
                "availability", [(r["availability_stated"], r["truth_availability"]) for r in rows]
            ),
            "product_pages_recognised": sum(r["page_type"] == "product" for r in rows),
            "page_types": dict(Counter(r["page_type"] for r in rows)),
        },
        "published": published(args.pages, truth),
        "per_currency": {
            currency: {
                "pages": len(group),
                "price": score("price", [(r["price"], r["truth_price"]) for r in group]),
                "availability": score("availability", [(r["availability"], r["truth_availability"]) for r in group]),
            }
            for currency, group in sorted(by_currency.items())
        },
        "price_sources": dict(Counter(r["price_source"] or "none" for r in rows)),
        "price_right_by_source": {
            source: {"read": len(group), "right": sum(_same("price", r["price"], r["truth_price"]) for r in group)}
            for source, group in _by(rows, "price_source").items()
        },
        "availability_right_by_source": {
            source: {
                "read": len(group),
                "right": sum(r["availability_stated"] in r["truth_availability"] for r in group),
            }
            for source, group in _by(rows, "availability_source").items()
        },
        "availability_sources": dict(Counter(r["availability_source"] or "none" for r in rows)),
        "read_seconds": {
            "p50": round(percentile([r["seconds"] for r in rows], 50), 4),
            "p95": round(percentile([r["seconds"] for r in rows], 95), 4),
            "max": round(max(r["seconds"] for r in rows), 4),
        },
        "misses": [
            {
                k: r[k]
                for k in (
                    "page",
                    "url",
                    "page_type",
                    "price",
                    "truth_price",
                    "currency",
                    "price_source",
                    "availability",
                    "truth_availability",
                )
            }
            for r in rows
            if not (_same("price", r["price"], r["truth_price"]) or (not r["price"] and not r["truth_price"]))
            or (r["availability"] or None) not in (r["truth_availability"] or [None])
        ],
    }
    write_result(args.out, result)


if __name__ == "__main__":
    main()
