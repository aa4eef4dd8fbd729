"""How twins react to what a page shows: one fact of a page changed at a time, the same twins deciding on both.
Writes benchmarks/results/page_sensitivity.json.

Pages: every product and search-results page the project has. Project-made: agent/sample_pages/product_page.html
and search_results.html (OPeRA-format) and the demo shop's product page (service/demo_shop, raw HTML through the
simplifier). Real: the raw amazon search page in ../shared/data/pages and every product / search_results page
listed in corpus/manifest.json (read at run time). Hand-made fixtures (not real pages):
tests/fixtures/raw_pages/amazon_product*.html. Raw pages go through agent.page.simplifier first.

Manipulations (functions below, applied to the simplified HTML's text by regexes over prices, stars, review
counts, stock and delivery phrases; never keyed to one file): price x2.5 and x0.5, rating down to 1.6 stars, 7
reviews, no ratings or reviews, a deal (list price shown at twice the price), "Currently unavailable" (buy
buttons kept), free next-day delivery, "$7.99 delivery in 2-3 weeks", a sponsored label, 30 option choices. On a
product page they change the product in view (other products' blocks are left alone); on a search page every
product. Each variant is parsed with parse_page and checked: a manipulation whose facts did not change as
intended is reported `applied: false` with the reason and not tested.

Twins: the 52 OPeRA personas (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) x 20 instances, embedded brain,
sample mode, common random numbers (seed = instance, the same in every variant), no memories. History: a search
(query typed, search clicked) and, on a product page, a click on that product's link. One decision each.
Outcomes: purchase, leave (terminate), review reading (label review). Paired McNemar per outcome (the test
agent/experiments/significance_tests.py has), Holm over every test of the run, within trait groups too.

Run: .venv/bin/python benchmarks/page_sensitivity.py [--instances 20]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _common import REPO, SHARED_OPERA, holm_adjust, write_result
from page_edits import MANIPULATIONS, ONLY_ON, WHY_NOT, Page, brief, check, targets

from agent.actions import ClickAction, InputAction
from agent.brains.embedded import EmbeddedBrain
from agent.experiments.significance_tests import _paired_binary
from agent.history import Step
from agent.page.observation import Observation
from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html
from agent.page.simplifier.slug import slugify
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.twin_context import TwinContext
from personas.sensitivities import sensitivities
from personas.sources import load_personas

CITATION = "OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0 (personas)"
SHARED_PAGES = SHARED_OPERA.parent / "pages"
ALPHA = 0.05
OUTCOMES = ("purchase", "leave", "review")
LABEL_OF = {"purchase": "purchase", "leave": "terminate", "review": "review"}

# --- the pages --------------------------------------------------------------------------------------------------


def load_pages() -> list[Page]:
    pages: list[Page] = []
    samples = REPO / "agent" / "sample_pages"
    pages.append(
        Page.make(
            "sample product page",
            "project-made",
            "agent/sample_pages/product_page.html",
            "product",
            (samples / "product_page.html").read_text(encoding="utf-8"),
            None,
        )
    )
    pages.append(
        Page.make(
            "sample search page",
            "project-made",
            "agent/sample_pages/search_results.html",
            "search_results",
            (samples / "search_results.html").read_text(encoding="utf-8"),
            None,
        )
    )
    real_search = SHARED_PAGES / "amazon_search_results.html"
    if real_search.exists():
        url = "https://www.amazon.com/s?k=basketball+shoes"
        pages.append(
            Page.make(
                "amazon search (basketball shoes)",
                "real",
                "../shared/data/pages/amazon_search_results.html",
                "search_results",
                simplify_html(real_search.read_text(errors="replace"), url).html,
                url,
            )
        )
    corpus = REPO / "corpus"
    for entry in json.loads((corpus / "manifest.json").read_text()):
        if entry.get("kind") not in ("product", "search_results"):
            continue
        raw = (corpus / entry["file"]).read_text(errors="replace")
        pages.append(
            Page.make(
                f"corpus {entry['site']} {Path(entry['file']).stem}",
                "real",
                f"corpus/{entry['file']}",
                entry["kind"],
                simplify_html(raw, None).html,
                None,
            )
        )
    from fastapi.testclient import TestClient

    from service.demo_shop import create_shop_app
    from service.demo_shop.catalog import PRODUCTS

    with TestClient(create_shop_app()) as shop:
        response = shop.get(f"/dp/{PRODUCTS[0].asin}")
        url = str(response.url)
        pages.append(
            Page.make(
                "demo shop product page",
                "project-made",
                f"service/demo_shop /dp/{PRODUCTS[0].asin}",
                "product",
                simplify_html(response.text, url).html,
                url,
            )
        )
    for path in sorted((REPO / "tests" / "fixtures" / "raw_pages").glob("amazon_product*.html")):
        url = "https://www.amazon.com/dp/B0EXAMPLE1"
        pages.append(
            Page.make(
                f"fixture {path.stem}",
                "hand-made fixture (not a real page)",
                f"tests/fixtures/raw_pages/{path.name}",
                "product",
                simplify_html(path.read_text(encoding="utf-8"), url).html,
                url,
            )
        )
    return pages


def history_for(page: Page, control: Observation) -> list[Step]:
    """A twin arriving from a search (and, on a product page, a click on this product's link)."""
    focus = control.facts.focus_product
    box = control.by_name.get("nav_bar.search_input")
    if focus is not None and focus.title:
        query = " ".join(focus.title.lower().replace(",", " ").split()[:4])
    else:
        query = (box.text if box is not None and box.text else "") or " ".join(
            (control.facts.products[0].title if control.facts.products else "shopping").lower().split()[:3]
        )
    steps = [
        Step(action=InputAction(name="nav_bar.search_input", text=query)),
        Step(action=ClickAction(name="nav_bar.search_button"), click_type="search"),
    ]
    if page.kind == "product":
        title = focus.title if focus is not None and focus.title else control.title
        steps.append(
            Step(action=ClickAction(name=f"search_results.{slugify(title)}.product_name"), click_type="product_link")
        )
    return steps


# --- the run ----------------------------------------------------------------------------------------------------

EXPECTED = {  # outcome -> direction published research expects (+1 up, -1 down), and the trait that should matter
    "price_x2.5": ({"purchase": -1, "leave": +1}, "price"),
    "price_x0.5": ({"purchase": +1, "leave": -1}, "price"),
    "rating_1.6": ({"purchase": -1}, "reviews"),
    "reviews_7": ({"purchase": -1}, "reviews"),
    "no_reviews": ({"purchase": -1}, "reviews"),
    "deal_50pct": ({"purchase": +1}, "price"),
    "unavailable": ({"purchase": -1, "leave": +1}, None),
    "delivery_free_fast": ({}, "delivery"),
    "delivery_paid_slow": ({"purchase": -1}, "delivery"),
    "sponsored": ({}, "ad_trust"),  # depends on ad trust: up for the ad-trusting (trait group), see below
    "options_30": ({}, "over_choice"),
}
TRAIT_EXPECTED = {  # direction expected within the trait group (sensitivity > 0)
    "sponsored": {"purchase": +1},
    "options_30": {"purchase": -1},
}
SOURCES = {
    "price": "Bijmolt, van Heerde & Pieters 2005 (price elasticity, mean -2.62)",
    "reviews": "You, Vadakkepatt & Joshi 2015 (eWOM valence and volume); Spiegel Research Center 2017 (first reviews)",
    "deal": "reference prices: a shown list price raises purchase intent (e.g. Grewal, Monroe & Krishnan 1998)",
    "unavailable": "Gruen, Corsten & Bharadwaj 2002 (stockouts: buy elsewhere or not at all)",
    "delivery": "Fisher, Gallino & Xu 2019 (faster delivery raises sales); fees deter purchase",
    "sponsored": "Edelman & Gilchrist 2012 (ad label wording moved ad clicks); depends on ad trust",
    "options": "Scheibehenne, Greifeneder & Todd 2010 (choice overload near zero on average); the confused",
}
TRAIT_LABEL = {
    "price": "price-conscious",
    "reviews": "review-engaged",
    "delivery": "delivery-minded",
    "ad_trust": "ad-trusting",
    "over_choice": "over-choice confused",
}


def seed_of(p: int, i: int, per_persona: bool) -> int:
    """The same in every variant. By default each persona and instance has its own, as experiments seed
    (agent/experiments/runner.instance_seed); with --seeds instance every persona draws with the same 20."""
    return 1_000_000 + 1_000 * p + i if per_persona else 1_000 + i


def decide_all(
    brain: EmbeddedBrain,
    personas,
    observation: Observation,
    history: list[Step],
    instances: int,
    per_persona: bool = False,
):
    """labels[p, i] and rationales for every persona x instance."""
    labels = np.empty((len(personas), instances), dtype=object)
    rationales = np.empty((len(personas), instances), dtype=object)
    for p, persona in enumerate(personas):
        for i in range(instances):
            decision = brain.decide_sync(
                TwinContext.on_page(
                    persona,
                    observation,
                    PredictionInput(
                        history=history, options=PredictOptions(mode="sample", seed=seed_of(p, i, per_persona))
                    ),
                )
            )
            labels[p, i] = decision.details["label"]
            rationales[p, i] = decision.rationale
    return labels, rationales


def rate(labels: np.ndarray, outcome: str) -> np.ndarray:
    return (labels == LABEL_OF[outcome]).astype(float)


def cites_price(rationales: np.ndarray, labels: np.ndarray) -> dict:
    mask = labels != "purchase"
    texts = rationales[mask]
    hits = sum(1 for t in texts if "$" in t or "price" in t.lower())
    return {
        "non_buyers": int(mask.sum()),
        "cite_price": hits,
        "share": round(hits / mask.sum(), 4) if mask.sum() else None,
    }


def compare(control: np.ndarray, treated: np.ndarray, outcome: str, rows: np.ndarray | None = None) -> dict:
    a, b = rate(control, outcome), rate(treated, outcome)
    if rows is not None:
        a, b = a[rows], b[rows]
    a, b = a.ravel(), b.ravel()
    test = _paired_binary(a, b)
    discordant = test["table"]["control_only"] + test["table"]["variant_only"]
    return {
        "n_pairs": int(a.size),
        "control": round(float(a.mean()), 4) if a.size else None,
        "treatment": round(float(b.mean()), 4) if a.size else None,
        "diff_points": round(100 * float(b.mean() - a.mean()), 2) if a.size else None,
        "test": test["test"],
        "p_value": test["p_value"] if discordant else None,
        "table": test["table"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument(
        "--seeds",
        choices=("instance", "persona"),
        default="persona",
        help="persona (the default, as experiments seed): one seed per persona and instance, the same "
        "in every variant; instance: seed = 1000 + instance for every persona (results in "
        "page_sensitivity_shared_seeds.json)",
    )
    args = parser.parse_args()
    per_persona = args.seeds == "persona"
    started = time.perf_counter()
    personas = load_personas(SHARED_OPERA / "personas.jsonl")
    sens = [sensitivities(p) for p in personas]
    brain = EmbeddedBrain()
    pages = load_pages()
    all_tests: list[dict] = []
    page_results = []
    table = []
    decisions = 0
    for page in pages:
        control = parse_page(page.html, page.url)
        history = history_for(page, control)
        c_labels, c_rationales = decide_all(brain, personas, control, history, args.instances, per_persona)
        decisions += c_labels.size
        page_entry = {
            "page": page.key,
            "origin": page.origin,
            "source": page.source,
            "kind": page.kind,
            "page_type": control.page_type,
            "url": page.url,
            "products": len(control.facts.products),
            "can_buy": control.facts.can_buy,
            "history": [s.action.model_dump() for s in history],
            "control_facts": brief(targets(control.facts)[0]) if targets(control.facts) else None,
            "control_rates": {o: round(float(rate(c_labels, o).mean()), 4) for o in OUTCOMES},
            "manipulations": {},
        }
        treated_by_name = {}
        for name, manipulate in MANIPULATIONS.items():
            entry: dict
            if ONLY_ON.get(name, page.kind) != page.kind:
                entry = {"applied": False, "reason": WHY_NOT[name]}
            else:
                observation = parse_page(manipulate(page), page.url)
                entry = check(name, control, observation)
                if entry["applied"]:
                    t_labels, t_rationales = decide_all(
                        brain, personas, observation, history, args.instances, per_persona
                    )
                    decisions += t_labels.size
                    treated_by_name[name] = t_labels
                    entry["outcomes"] = outcomes_of(name, c_labels, t_labels, sens, all_tests, page.key)
                    if name == "price_x2.5":
                        page_entry["rationale_cites_price"] = {
                            "control": cites_price(c_rationales, c_labels),
                            "price_x2.5": cites_price(t_rationales, t_labels),
                        }
            page_entry["manipulations"][name] = entry
        if "delivery_free_fast" in treated_by_name and "delivery_paid_slow" in treated_by_name:
            contrast = {}
            for outcome in OUTCOMES:
                result = compare(treated_by_name["delivery_free_fast"], treated_by_name["delivery_paid_slow"], outcome)
                result.update(
                    expected=-1 if outcome == "purchase" else None,
                    scope="all",
                    page=page.key,
                    manipulation="delivery_paid_slow vs delivery_free_fast",
                    outcome=outcome,
                )
                all_tests.append(result)
                contrast[outcome] = result
            page_entry["delivery_paid_slow_vs_free_fast"] = contrast
        page_results.append(page_entry)

    family = holm_adjust(all_tests, ALPHA)
    for t in all_tests:
        if t.get("expected"):
            t["matches_expected"] = bool(t["significant"] and np.sign(t["diff_points"]) == t["expected"])
    for page_entry in page_results:
        for name, entry in page_entry["manipulations"].items():
            for outcome, result in entry.get("outcomes", {}).items():
                if result.get("expected"):
                    table.append((page_entry["page"], name, outcome, result))
    seconds = time.perf_counter() - started
    print_table(page_results)
    summary = summarise(all_tests)
    write_result(
        "page_sensitivity" if per_persona else "page_sensitivity_shared_seeds",
        {
            "command": ".venv/bin/python benchmarks/page_sensitivity.py"
            + (f" --instances {args.instances}" if args.instances != 20 else "")
            + ("" if per_persona else " --seeds instance"),
            "citation": CITATION,
            "seconds": round(seconds, 1),
            "decisions": decisions,
            "twins": {
                "personas": len(personas),
                "instances": args.instances,
                "mode": "sample",
                "seeds": (
                    "1000000 + 1000 x persona index + instance: its own per persona and instance, the same in every "
                    "variant (common random numbers)"
                )
                if per_persona
                else (
                    "1000 + instance, the same for every persona and variant (common random numbers); the "
                    "embedded brain's first uniform draw picks the label, so every persona draws the label "
                    "with the same 20 numbers: rates move in steps near 1/20 and pairs are not independent "
                    "across personas (the default, --seeds persona, gives each its own)"
                ),
                "memories": "none",
                "brain": "embedded",
            },
            "traits": {TRAIT_LABEL[t]: sum(1 for s in sens if getattr(s, t) > 0) for t in TRAIT_LABEL},
            "test": "paired McNemar (agent/experiments/significance_tests.py _paired_binary) on persona x instance "
            "pairs; tests "
            "without a discordant pair are reported with p_value null and left out of the correction",
            "correction": {
                "method": "holm",
                "alpha": ALPHA,
                "n_tests": family,
                "family": "every test of the run: pages x manipulations x outcomes, all twins and each trait group",
            },
            "expected_directions": {
                k: {"overall": v[0], "trait": v[1], "trait_group": TRAIT_EXPECTED.get(k, {})}
                for k, v in EXPECTED.items()
            },
            "sources": SOURCES,
            "summary": summary,
            "pages": page_results,
        },
    )


def outcomes_of(name: str, c_labels, t_labels, sens, all_tests: list[dict], page_key: str) -> dict:
    expected, trait = EXPECTED[name]
    results = {}
    for outcome in OUTCOMES:
        result = compare(c_labels, t_labels, outcome)
        result.update(expected=expected.get(outcome), scope="all", page=page_key, manipulation=name, outcome=outcome)
        all_tests.append(result)
        if trait:
            has = np.asarray([getattr(s, trait) > 0 for s in sens])
            groups = {}
            for label, rows in ((TRAIT_LABEL[trait], has), ("not " + TRAIT_LABEL[trait], ~has)):
                group = compare(c_labels, t_labels, outcome, rows)
                in_trait = label == TRAIT_LABEL[trait]
                group.update(
                    n_personas=int(rows.sum()),
                    scope=label,
                    page=page_key,
                    manipulation=name,
                    outcome=outcome,
                    expected=TRAIT_EXPECTED.get(name, {}).get(outcome) if in_trait else None,
                )
                all_tests.append(group)
                groups[label] = group
            result["by_trait"] = groups
        results[outcome] = result
    return results


def summarise(all_tests: list[dict]) -> dict:
    expected = [t for t in all_tests if t.get("expected")]
    return {
        "expected_tests": len(expected),
        "matching": sum(t["matches_expected"] for t in expected),
        "significant_against": sum(
            1 for t in expected if t["significant"] and np.sign(t["diff_points"]) == -t["expected"]
        ),
        "not_significant": sum(1 for t in expected if not t["significant"]),
        "by_manipulation": {
            f"{m} / {o} / {s}": f"{sum(t['matches_expected'] for t in group)} of {len(group)} pages"
            for (m, o, s) in sorted({(t["manipulation"], t["outcome"], t["scope"]) for t in expected})
            for group in [[t for t in expected if (t["manipulation"], t["outcome"], t["scope"]) == (m, o, s)]]
        },
    }


def print_table(page_results: list[dict]) -> None:
    print(f"{'page':<44} {'manipulation':<19} {'buy c->t (pts)':>22} {'leave c->t (pts)':>22} {'review d':>8}  match")
    for entry in page_results:
        print(
            f"{entry['page'][:44]:<44} ({entry['origin']}, control buy {entry['control_rates']['purchase']:.3f}"
            f" leave {entry['control_rates']['leave']:.3f} review {entry['control_rates']['review']:.3f})"
        )
        for name, m in entry["manipulations"].items():
            if not m["applied"]:
                print(f"{'':<44} {name:<19} not applied: {m['reason'][:70]}")
                continue
            o = m["outcomes"]

            def cell(r):
                star = "*" if r["significant"] else " "
                return f"{r['control']:.3f}->{r['treatment']:.3f} ({r['diff_points']:+.1f}){star}"

            marks = [f"{k}:{'ok' if r.get('matches_expected') else 'NO'}" for k, r in o.items() if r.get("expected")]
            for group in (o["purchase"].get("by_trait") or {}).values():
                if group.get("expected"):
                    marks.append(f"{group['scope']}:{'ok' if group.get('matches_expected') else 'NO'}")
            print(
                f"{'':<44} {name:<19} {cell(o['purchase']):>22} {cell(o['leave']):>22} "
                f"{o['review']['diff_points']:+8.1f}  " + " ".join(marks)
            )


if __name__ == "__main__":
    main()
