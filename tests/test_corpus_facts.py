"""Page facts on real saved shop pages (corpus/pages, sources and licenses in corpus/manifest.json) against
the ground truth the team wrote by reading each raw page. Every page is checked; a test lists every miss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.observation import parse_page
from agent.simplifier import simplify_html

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
FACTS = ("price", "list_price", "rating", "review_count", "availability")


def fold(text: str | None) -> str:
    return " ".join((text or "").split())


def test_the_manifest_lists_every_saved_page():
    listed = {entry["file"] for entry in MANIFEST}
    saved = {f"pages/{path.name}" for path in (CORPUS / "pages").iterdir()}
    assert listed == saved


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["file"] for entry in MANIFEST])
def test_facts_match_the_ground_truth(entry):
    raw = (CORPUS / entry["file"]).read_text(encoding="utf-8")
    assert len(raw) == entry["characters"]
    observation = parse_page(simplify_html(raw).html)  # no URL: the page alone must say what it is
    facts, truth = observation.facts, entry["ground_truth"]
    misses: list[str] = []
    if entry["kind"] == "product":
        product = facts.focus_product
        if product is None:
            pytest.fail(f"no product found; products: {[p.title for p in facts.products]}")
        if fold(product.title) != fold(truth["title"]):
            misses.append(f"title: {product.title!r} != {truth['title']!r}")
        for fact in FACTS:
            if getattr(product, fact) != truth[fact]:
                misses.append(f"{fact}: {getattr(product, fact)!r} != {truth[fact]!r}")
        if bool(product.buy_names) != ("add_to_cart" in truth["key_elements"]):
            misses.append(f"purchase elements {product.buy_names} where the page's add-to-cart is "
                          f"{truth['key_elements'].get('add_to_cart')}")
        if facts.can_buy != (bool(product.buy_names) and truth["availability"] != "unavailable"):
            misses.append(f"can_buy {facts.can_buy}")
    else:  # a page that shows no product must not make one up
        if facts.focus is not None:
            misses.append(f"a focus product on a page of kind {entry['kind']}: {facts.focus_product}")
        if any(p.price is not None for p in facts.products):
            misses.append(f"priced products on a page without products: {facts.products}")
        if fold(observation.title) != fold(truth["title"]):
            misses.append(f"title: {observation.title!r} != {truth['title']!r}")
    assert not misses, f"{entry['file']}: " + "; ".join(misses)
