"""How twins react to real product pages of shops other than Amazon, in their own currencies: the main product's
price x2.5, its rating down to 1.6 stars, out of stock, a deal, each made from the page's own markup.
Writes benchmarks/results/page_sensitivity_any_shop.json (the Amazon figures stay in page_sensitivity.json).

Pages: the development half of Zyte's product-extraction benchmark (scrapinghub/product-extraction-benchmark,
commit cba97d7, MIT License, Copyright (c) 2021 Zyte), ../shared/data/product-pages: real rendered pages with a
ground-truth price. Chosen: pages in EUR, RON and BRL where the reader reads the ground-truth price of the page's
own product and finds a buy control; every GBP and SAR page of the set whose ground truth is InStock and that the
reader reads so (the ground-truth price and a buy control: five ikea.com/gb, an ebay.co.uk auction, two
namshi.com); and the GBP pages whose ground truth is OutOfStock (two ikea.com/gb), the case "nothing is bought where
the page cannot sell".

Edits (benchmarks/markup_edits.py, independent of the reader's patterns): every spelling of the ground-truth price
(and of the list price the page shows) in JSON, price attributes and visible text, rewritten in the same spelling.
Each edited page is re-read with agent.page.read_page.observe_page and the JSON says whether the twins saw the
edit (`visible_to_twins`); twins decide on every applied edit, seen or not.

Twins: the 52 OPeRA personas (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) x 20 instances, embedded brain,
sample mode, seeds as page_sensitivity.py (per persona and instance, the same in every variant), no memories,
arriving from a search and a click on the product. Paired McNemar per outcome
(agent/experiments/significance_tests.py), Holm over every test of this run: pages x edits x outcomes and the pooled
tests per currency (over the pages whose ground truth is InStock).

Run: .venv/bin/python benchmarks/page_sensitivity_any_shop.py [--instances 20]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from decimal import Decimal
from types import SimpleNamespace

import numpy as np
from _common import SHARED_OPERA, holm_adjust, write_result
from markup_edits import deal, out_of_stock, rating_down, scale_price
from page_sensitivity import compare, decide_all, history_for, rate

from agent.brains.embedded import EmbeddedBrain
from agent.page.read_page import observe_page
from personas.sources import load_personas

PAGES_DIR = SHARED_OPERA.parent / "product-pages"
CITATION = (
    "pages: Zyte product-extraction benchmark (scrapinghub/product-extraction-benchmark, commit cba97d7, MIT, "
    "(c) 2021 Zyte), development half; personas: OPeRA, Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0"
)
# sha256 prefix -> (shop, currency) of the pages used; chosen by the rule in the docstring
PAGES = {
    "040c3ea5ea": ("otto.de", "EUR"),
    "e1c58cf210": ("otto.de", "EUR"),
    "f7df67b3da": ("zalando.fi", "EUR"),
    "6f905464d4": ("zalando.fi", "EUR"),
    "3ae1433354": ("kiabi.com", "EUR"),
    "2fa16d14a9": ("emag.ro", "RON"),
    "4595f2ae9f": ("emag.ro", "RON"),
    "1c79626791": ("mobly.com.br", "BRL"),
    "eb7b7d31ca": ("mobly.com.br", "BRL"),
    "0666abebc0": ("ikea.com/gb", "GBP"),
    "4708bedc6a": ("ikea.com/gb", "GBP"),
    "bd4c847570": ("ikea.com/gb", "GBP"),
    "4f29e8cc08": ("ikea.com/gb", "GBP"),
    "6d4840415e": ("ikea.com/gb", "GBP"),
    "359ca699f8": ("ebay.co.uk", "GBP"),
    "5dc513be89": ("namshi.com", "SAR"),
    "2c08ee46ba": ("namshi.com", "SAR"),
    "897bc5b59e": ("ikea.com/gb", "GBP"),  # ground truth OutOfStock: cannot sell
    "f94bb87d39": ("ikea.com/gb", "GBP"),  # ground truth OutOfStock: cannot sell
}
FACTOR = Decimal("2.5")
RATING = Decimal("1.6")
EDITS = ("price_x2.5", "rating_1.6", "out_of_stock", "deal_50pct")
EXPECTED = {
    "price_x2.5": {"purchase": -1, "leave": +1},
    "rating_1.6": {"purchase": -1},
    "out_of_stock": {"purchase": -1, "leave": +1},
    "deal_50pct": {"purchase": +1},
}
OUTCOMES = ("purchase", "leave")
ALPHA = 0.05
MAX_BYTES = 10_000_000  # rendered pages reach 1.6 MB; the service's default limit is 2 MB


def read(html: str, url: str):
    return observe_page(html, url=url, simplified=False, max_bytes=MAX_BYTES)


def focus_brief(observation) -> dict | None:
    p = observation.facts.focus_product
    if p is None:
        return None
    return {
        "price": p.price,
        "list_price": p.list_price,
        "currency": p.currency,
        "price_source": p.source_of("price"),
        "rating": p.rating,
        "availability": p.availability,
        "buy_controls": len(p.buy_names),
        "can_buy": observation.facts.can_buy,
    }


def make_edit(name: str, html: str, price: Decimal, control) -> tuple:
    """(Edit, did the re-read page show it) for one edit of one page."""
    focus = control.facts.focus_product
    list_price = Decimal(str(focus.list_price)) if focus is not None and focus.list_price else None
    if name == "price_x2.5":
        edit = scale_price(html, price, FACTOR, list_price)
        seen = lambda p, o: (  # noqa: E731 - one predicate per edit, the branches read as a table
            p is not None and p.price is not None and Decimal(str(p.price)) == Decimal(edit.detail["new_price"])
        )
    elif name == "rating_1.6":
        edit = rating_down(html, RATING)
        seen = lambda p, o: p is not None and p.rating is not None and Decimal(str(p.rating)) == RATING  # noqa: E731 - one predicate per edit, the branches read as a table
    elif name == "out_of_stock":
        edit = out_of_stock(html)
        seen = lambda p, o: p is not None and (p.availability == "unavailable" or not o.facts.can_buy)  # noqa: E731 - one predicate per edit, the branches read as a table
    else:
        edit = deal(html, price, Decimal(2), list_price, currency_text="")
        seen = lambda p, o: (  # noqa: E731 - one predicate per edit, the branches read as a table
            p is not None
            and p.list_price is not None
            and p.price is not None
            and abs(p.list_price - 2 * p.price) < 0.011
        )
    return edit, seen


def run_page(item, instances: int):
    """One page: its control and edits read and decided by every twin (a process of its own: pages are slow to read)."""
    prefix, (shop, currency) = item
    truth = json.loads((PAGES_DIR / "ground-truth.json").read_text())
    personas = load_personas(SHARED_OPERA / "personas.jsonl")
    brain = EmbeddedBrain()
    sha = next(k for k in truth if k.startswith(prefix))
    gt = truth[sha]
    with gzip.open(PAGES_DIR / "html" / f"{sha}.html.gz") as saved:
        html = saved.read().decode("utf-8", "replace")
    price = Decimal(gt["price"][0].strip())
    control = read(html, gt["url"])
    history = history_for(SimpleNamespace(kind="product"), control)
    c_labels, _ = decide_all(brain, personas, control, history, instances, True)
    key = f"{shop} {prefix}"
    entry = {
        "page": key,
        "sha256": sha,
        "url": gt["url"],
        "shop": shop,
        "currency": currency,
        "ground_truth": {"price": gt["price"], "currency": gt.get("currency"), "availability": gt["availability"]},
        "page_type": control.page_type,
        "control_facts": focus_brief(control),
        "control_rates": {o: round(float(rate(c_labels, o).mean()), 4) for o in OUTCOMES},
        "edits": {},
    }
    treated_labels = {}
    for name in EDITS:
        edit, seen = make_edit(name, html, price, control)
        if not edit.applied:
            entry["edits"][name] = {"applied": False, "reason": edit.reason}
            continue
        treated = read(edit.html, gt["url"])
        t_labels, _ = decide_all(brain, personas, treated, history, instances, True)
        treated_labels[name] = t_labels
        entry["edits"][name] = {
            "applied": True,
            "occurrences": edit.occurrences,
            "occurrences_by_context": edit.counts,
            "detail": edit.detail,
            "visible_to_twins": bool(seen(treated.facts.focus_product, treated)),
            "facts_after": focus_brief(treated),
            "outcomes": {},
        }
    print(f"{key} done", flush=True)
    return entry, c_labels, treated_labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=4, help="pages read and decided in parallel processes")
    args = parser.parse_args()
    started = time.perf_counter()
    personas = load_personas(SHARED_OPERA / "personas.jsonl")
    tests: list[dict] = []
    pooled: dict[tuple[str, str], list] = {}
    results = []
    decisions = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        done = list(pool.map(run_page, PAGES.items(), [args.instances] * len(PAGES)))
    for entry, c_labels, treated in done:
        decisions += c_labels.size + sum(t.size for t in treated.values())
        for name, t_labels in treated.items():
            for outcome in OUTCOMES:
                result = compare(c_labels, t_labels, outcome)
                result.update(
                    page=entry["page"], edit=name, outcome=outcome, scope="page", expected=EXPECTED[name].get(outcome)
                )
                tests.append(result)
                entry["edits"][name]["outcomes"][outcome] = result
            if "InStock" in entry["ground_truth"]["availability"]:  # pages that cannot sell are not pooled
                pooled.setdefault((entry["currency"], name), []).append((c_labels, t_labels))
        results.append(entry)
    by_currency = {}
    for (currency, name), pairs in sorted(pooled.items()):
        c = np.concatenate([a for a, _ in pairs])
        t = np.concatenate([b for _, b in pairs])
        for outcome in OUTCOMES:
            result = compare(c, t, outcome)
            result.update(
                page=f"pooled {currency}",
                edit=name,
                outcome=outcome,
                scope="currency",
                pages=len(pairs),
                expected=EXPECTED[name].get(outcome),
            )
            tests.append(result)
            by_currency.setdefault(currency, {}).setdefault(name, {})[outcome] = result
    family = holm_adjust(tests, ALPHA)
    for t in tests:
        if t.get("expected"):
            t["matches_expected"] = bool(t["significant"] and np.sign(t["diff_points"]) == t["expected"])
    print_summary(results, by_currency)
    write_result(
        "page_sensitivity_any_shop",
        {
            "command": ".venv/bin/python benchmarks/page_sensitivity_any_shop.py"
            + (f" --instances {args.instances}" if args.instances != 20 else ""),
            "citation": CITATION,
            "seconds": round(time.perf_counter() - started, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "decisions": decisions,
            "twins": {
                "personas": len(personas),
                "instances": args.instances,
                "mode": "sample",
                "brain": "embedded",
                "memories": "none",
                "seeds": "1000000 + 1000 x persona index + instance, the same in every variant",
            },
            "edits": {
                "price_x2.5": "ground-truth price (and the list price the page shows) x2.5 in every spelling the page "
                "uses, rounded up to the page's decimals (whole units: x2.5 to x2.52)",
                "rating_1.6": "the page's ratingValue (JSON-LD / microdata) and its visible 'x out of 5' set to 1.6",
                "out_of_stock": "schema.org InStock -> OutOfStock, meta availability, every buy control removed",
                "deal_50pct": "the list price the page shows set to 2x the price, else a struck 2x price added after "
                "the page's first short visible price, in its spelling and currency",
            },
            "test": "paired McNemar (agent/experiments/significance_tests.py _paired_binary) on persona x instance "
            "pairs; tests "
            "without a discordant pair have p_value null and stay out of the correction",
            "correction": {
                "method": "holm",
                "alpha": ALPHA,
                "n_tests": family,
                "family": "pages x edits x outcomes, and the pooled tests per currency",
            },
            "pages": results,
            "pooled_by_currency": by_currency,
        },
    )


def cell(r: dict) -> str:
    return f"{r['diff_points']:+.1f}{'*' if r['significant'] else ''}"


def print_summary(results: list[dict], by_currency: dict) -> None:
    print(f"\n{'page':<24} {'cur':<4} {'control buy/leave':<18} " + " ".join(f"{e:<24}" for e in EDITS))
    for r in results:
        cells = []
        for name in EDITS:
            e = r["edits"][name]
            cells.append(
                "n/a"
                if not e["applied"]
                else f"{cell(e['outcomes']['purchase'])} / {cell(e['outcomes']['leave'])}"
                + ("" if e["visible_to_twins"] else " (unseen)")
            )
        rates = r["control_rates"]
        print(
            f"{r['page']:<24} {r['currency']:<4} {rates['purchase']:.3f} / {rates['leave']:.3f}     "
            + " ".join(f"{c:<24}" for c in cells)
        )
    for currency, edits in by_currency.items():
        print(
            f"pooled {currency:<17}      "
            + " ".join(
                f"{cell(edits[n]['purchase']) + ' / ' + cell(edits[n]['leave']) if n in edits else 'n/a':<24}"
                for n in EDITS
            )
        )


if __name__ == "__main__":
    main()
