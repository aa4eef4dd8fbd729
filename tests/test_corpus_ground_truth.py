"""The corpus's hand-read ground truth is well formed: every page keeps its source and license, its character
count, key elements of the fixed kinds whose selectors match the raw page, and, on listing and cart pages, the
products a shopper sees with their prices and currencies, each title written as the raw page shows it
(corpus/README.md)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
KINDS = (
    "search_box",
    "search_button",
    "product_title",
    "price",
    "rating",
    "review_count",
    "options",
    "quantity",
    "add_to_cart",
    "buy_now",
    "cart_link",
    "checkout",
    "filters",
    "next_page",
)
PAGE_KINDS = {"product", "search_results", "category", "cart", "checkout", "other"}
PRODUCT_LIST_KINDS = {"search_results", "category", "cart"}  # pages whose ground truth must list their products
CURRENCY = re.compile(r"[A-Z]{3}")  # an ISO 4217 alphabetic code
PRICE = re.compile(r"\d+\.\d\d")  # what the shopper pays, as a decimal string with two places ("1499.99")


def test_the_manifest_lists_every_saved_page_once():
    files = [entry["file"] for entry in MANIFEST]
    assert len(files) == len(set(files))
    assert set(files) == {f"pages/{path.name}" for path in (CORPUS / "pages").iterdir()}


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["file"] for entry in MANIFEST])
def test_entry_keeps_provenance_and_a_fixed_schema(entry):
    assert entry["kind"] in PAGE_KINDS
    assert entry["license"] and entry["retrieved"] and entry["site"]
    source = entry["source"]
    assert source.get("package") or source.get("repository")
    assert source.get("path")
    truth = entry["ground_truth"]
    assert truth["annotated_by"] == "the twinsim team, by reading the raw page"
    kinds = list(truth["key_elements"])
    assert kinds == [kind for kind in KINDS if kind in kinds], "unknown kinds or out of the schema's order"
    assert not set(truth.get("not_annotated", {})) & set(kinds)
    if entry["kind"] == "product":
        for fact in ("title", "price", "list_price", "rating", "review_count", "availability"):
            assert fact in truth


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["file"] for entry in MANIFEST])
def test_every_selector_matches_the_raw_page(entry):
    raw = (CORPUS / entry["file"]).read_text(encoding="utf-8")
    assert len(raw) == entry["characters"]
    assert len(raw.encode("utf-8")) <= 2_000_000
    tree = LexborHTMLParser(raw)
    truth = entry["ground_truth"]
    selectors = {**truth.get("other_elements", {}), **truth["key_elements"]}
    missing = [f"{name}: {selector}" for name, selector in selectors.items() if not tree.css(selector)]
    assert not missing, f"{entry['file']}: selectors matching nothing: {missing}"


def fold(text: str) -> str:
    return " ".join(text.split())


def page_text(raw: str) -> str:
    """The raw page's text as a browser would show it (entities decoded), without scripts and styles."""
    tree = LexborHTMLParser(raw)
    for node in tree.css("script, style, noscript"):
        node.decompose()
    return fold(tree.root.text())


def test_listing_and_cart_pages_list_their_products():
    missing = [
        entry["file"]
        for entry in MANIFEST
        if entry["kind"] in PRODUCT_LIST_KINDS and not {"products", "currency"} <= set(entry["ground_truth"])
    ]
    assert not missing, f"listing or cart pages without products or currency: {missing}"


@pytest.mark.parametrize(
    "entry",
    [e for e in MANIFEST if "products" in e["ground_truth"]],
    ids=[e["file"] for e in MANIFEST if "products" in e["ground_truth"]],
)
def test_listed_products_are_on_the_raw_page_with_a_decimal_price_and_a_currency(entry):
    truth = entry["ground_truth"]
    assert CURRENCY.fullmatch(truth["currency"]), truth["currency"]
    text = page_text((CORPUS / entry["file"]).read_text(encoding="utf-8"))
    wrong = []
    for product in truth["products"]:
        assert set(product) == {"title", "price", "currency"}, product
        if not product["title"].strip() or fold(product["title"]) not in text:
            wrong.append(f"title not in the page's text: {product['title']!r}")
        price = product["price"]
        if price is not None and not (isinstance(price, str) and PRICE.fullmatch(price) and Decimal(price) > 0):
            wrong.append(f"price not a decimal string: {price!r} ({product['title']!r})")
        if not CURRENCY.fullmatch(product["currency"] or ""):
            wrong.append(f"currency not an ISO 4217 code: {product['currency']!r} ({product['title']!r})")
    assert not wrong, f"{entry['file']}: {wrong}"
