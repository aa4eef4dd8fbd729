"""Coverage of the corpus's hand-read key elements (corpus/manifest.json) by the simplifier.

Every page of corpus/pages is simplified and every key element of its ground truth must come out: on Amazon
pages under OPeRA's name for its kind, elsewhere under a generic name or, for what a shopper reads, as text
(agent/page/simplifier/coverage.py says exactly how). No page is left out for failing: what the simplifier cannot
produce yet is listed in EXPECTED_MISSES with the reason and reported by pytest as an expected failure;
one that starts to come out fails the run (strict), so the list only shrinks.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from agent.page.simplifier import simplify_html
from agent.page.simplifier.coverage import MARK, PageCoverage, mark, page_coverage

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
ENTRIES = {entry["file"]: entry for entry in MANIFEST}

# (page, kind) -> why that key element does not come out yet.
EXPECTED_MISSES: dict[tuple[str, str], str] = {
    (
        "pages/wilsonsleather_category_crossbody.html",
        "filters",
    ): "the facet values are plain li elements the site's script makes clickable: no link, button, role or onclick "
    "in the markup",
    (
        "pages/gsmkomplekt_category_lens-flex-cables.html",
        "price",
    ): "the prices ('75.0 грн') do come out as text, but the measure's money pattern (_MONEY in "
    "agent/page/simplifier/coverage.py) knows only $, €, £, ¥ and EUR, so it finds no amount in hryvnias to compare",
    (
        "pages/sumkastyle_category_shopping-bags.html",
        "price",
    ): "the prices ('230 руб.') do come out as text, but the measure's money pattern knows no roubles (as above)",
    (
        "pages/katoni_category_sejlersko.html",
        "price",
    ): "the prices ('DKK 1.084,00') do come out as text, but the measure's money pattern knows no Danish kroner (as "
    "above)",
    (
        "pages/katoni_category_sejlersko.html",
        "filters",
    ): "three of the eleven (the size, colour and brand toggles) are plain div elements the site's script opens: no "
    "link, button, role or onclick in the markup",
    (
        "pages/gamexchange_category_apple.html",
        "cart_link",
    ): "the basket count is an a element without href (<a><strong>0</strong></a>) that the site's script opens: no "
    "link in the markup",
}


def is_amazon(entry: dict) -> bool:
    return entry["site"].startswith("amazon.")


def raw_page(entry: dict) -> str:
    return (CORPUS / entry["file"]).read_text(encoding="utf-8")


@cache
def coverage(file: str) -> PageCoverage:
    entry = ENTRIES[file]
    truth = entry["ground_truth"]
    return page_coverage(raw_page(entry), truth["key_elements"], is_amazon(entry), file, facts=truth)


def cases():
    for entry in MANIFEST:
        for kind in entry["ground_truth"]["key_elements"]:
            reason = EXPECTED_MISSES.get((entry["file"], kind))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            yield pytest.param(entry["file"], kind, marks=marks, id=f"{entry['file'][len('pages/') :]}:{kind}")


def test_expected_misses_name_annotated_elements():
    for file, kind in EXPECTED_MISSES:
        assert kind in ENTRIES[file]["ground_truth"]["key_elements"], (file, kind)


@pytest.mark.parametrize(("file", "kind"), list(cases()))
def test_key_element_comes_out(file, kind):
    result = next(r for r in coverage(file).kinds if r.kind == kind)
    assert result.covered, (
        f"{file} {kind} ({result.selector}): {result.came_out} of {result.annotated} annotated "
        f"elements came out; recipe {coverage(file).recipe}"
    )


def test_overall_coverage_is_at_least_95_percent():
    results = [r for entry in MANIFEST for r in coverage(entry["file"]).kinds]
    covered = sum(r.covered for r in results)
    assert covered / len(results) >= 0.95, f"{covered} of {len(results)} key elements"
    assert len(results) - covered == len(EXPECTED_MISSES)


@pytest.mark.parametrize("file", [e["file"] for e in MANIFEST if e["kind"] == "product" and is_amazon(e)])
def test_amazon_product_pages_use_the_product_recipe(file):
    assert coverage(file).recipe == "amazon_product"


@pytest.mark.parametrize("file", [e["file"] for e in MANIFEST])
def test_marking_the_raw_page_changes_nothing(file):
    """The identity check simplifies a marked copy; it must be the same page to the simplifier."""
    raw = raw_page(ENTRIES[file])
    assert simplify_html(mark(raw)[1], source_attribute=MARK).html == simplify_html(raw).html
