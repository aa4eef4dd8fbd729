"""The page-sensitivity benchmark's manipulations (benchmarks/page_edits.py) change what they say on the sample pages:
a manipulation that
silently does nothing (or changes another fact or other products) fails here, before it can dilute a result."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent.page.parse import parse_page

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import page_edits as pe  # noqa: E402 - a benchmark module: importable once benchmarks/ is on the path

PAGES = REPO / "agent" / "sample_pages"


@pytest.fixture(scope="module")
def product_page() -> pe.Page:
    html = (PAGES / "product_page.html").read_text(encoding="utf-8")
    return pe.Page.make(
        "sample product page", "project-made", "agent/sample_pages/product_page.html", "product", html, None
    )


@pytest.fixture(scope="module")
def search_page() -> pe.Page:
    html = (PAGES / "search_results.html").read_text(encoding="utf-8")
    return pe.Page.make(
        "sample search page", "project-made", "agent/sample_pages/search_results.html", "search_results", html, None
    )


def facts_after(page: pe.Page, name: str):
    before = parse_page(page.html, page.url)
    after = parse_page(pe.MANIPULATIONS[name](page), page.url)
    return before, after


def test_the_serialised_page_reads_as_the_original(product_page):
    original = parse_page((PAGES / "product_page.html").read_text(encoding="utf-8")).facts
    assert parse_page(product_page.html).facts == original


# (manipulation, what the product in view should show afterwards)
EXPECTED = {
    "price_x2.5": lambda p: p.price == 32.48 and p.list_price == 39.98,
    "price_x0.5": lambda p: p.price == 6.5 and p.list_price == 8.0,
    "rating_1.6": lambda p: p.rating == 1.6 and p.review_count == 48211,
    "reviews_7": lambda p: p.review_count == 7 and p.rating == 4.7,
    "no_reviews": lambda p: p.rating is None and not p.review_count,
    "deal_50pct": lambda p: p.price == 12.99 and p.list_price == 25.98 and abs(p.discount - 0.5) < 1e-3,
    "unavailable": lambda p: p.availability == "unavailable" and len(p.buy_names) == 4,
    "delivery_free_fast": lambda p: p.delivery_free is True and p.delivery_days == 1,
    "delivery_paid_slow": lambda p: p.delivery_free is False and p.delivery_fee == 7.99,
    "options_30": lambda p: p.option_count == 30,
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_manipulation_changes_the_product_in_view_as_intended(product_page, name):
    before, after = facts_after(product_page, name)
    product = after.facts.focus_product
    assert EXPECTED[name](product), (name, product)
    assert after.facts.alternatives() == before.facts.alternatives(), "other products must be left alone"
    assert after.page_type == before.page_type
    result = pe.check(name, before, after)
    assert result["applied"] is True, result


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_untouched_facts_stay(product_page, name):
    before, after = facts_after(product_page, name)
    old, new = pe.brief(before.facts.focus_product), pe.brief(after.facts.focus_product)
    touched = {
        "price_x2.5": {"price", "list_price"},
        "price_x0.5": {"price", "list_price"},
        "rating_1.6": {"rating"},
        "reviews_7": {"reviews"},
        "no_reviews": {"rating", "reviews"},
        "deal_50pct": {"list_price"},
        "unavailable": {"availability"},
        "delivery_free_fast": {"free", "fee", "days"},
        "delivery_paid_slow": {"free", "fee", "days"},
        "options_30": {"options"},
    }[name]
    assert {k: v for k, v in old.items() if k not in touched} == {k: v for k, v in new.items() if k not in touched}


def test_a_manipulation_that_does_nothing_is_not_applied(product_page):
    before = parse_page(product_page.html)
    for name in EXPECTED:
        assert pe.check(name, before, before)["applied"] is False, name


def test_the_product_in_view_cannot_be_labelled_sponsored_and_says_why(product_page):
    before = parse_page(product_page.html)
    after = parse_page(pe.sponsored(product_page))
    result = pe.check("sponsored", before, after)
    assert result["applied"] is False and result["reason"]


@pytest.mark.parametrize("name", [n for n in pe.MANIPULATIONS if n != "options_30"])
def test_on_a_search_page_every_product_changes(search_page, name):
    before, after = facts_after(search_page, name)
    result = pe.check(name, before, after)
    if name == "sponsored":  # three results already carry the label
        assert result["applied"] is True and all(p.sponsored for p in after.facts.products)
        return
    assert result["applied"] is True, result
    assert result["changed"] == result["eligible"] == len(before.facts.products) == 48


# --- edits of real shop pages from their own markup (benchmarks/markup_edits.py) --------------------------------

from decimal import Decimal  # noqa: E402 - this section's imports, kept with its tests

import markup_edits as me  # noqa: E402 - this section's imports, kept with its tests

SHOP_PAGE = """<html><head><title>Table - 1.299,00 €</title>
<script type="application/ld+json">{"@type": "Product", "offers": {"@type": "Offer", "price": "1299.00",
"priceCurrency": "EUR", "availability": "https://schema.org/InStock"},
"aggregateRating": {"ratingValue": "4.6", "reviewCount": "12"}}</script>
<meta property="product:price:amount" content="1299.00"></head>
<body><h1>Table</h1><div class="price"><span>1.299,00 €</span></div><div class="was">Statt 1.599,00 €</div>
<p>4.6 von 5 Sternen</p><button class="add-to-cart">In den Warenkorb</button>
<section><h2>Details</h2><p>Solid oak, oiled by hand in the workshop, assembled in ten minutes with the tools included;
the legs unscrew for moving house, and the top can be sanded down and oiled again after years of use.</p>
<p>Width 1299 mm</p></section></body></html>"""


def test_the_price_is_rewritten_in_every_spelling_the_page_uses_and_counted():
    edit = me.scale_price(SHOP_PAGE, Decimal("1299"), Decimal("2.5"), list_price=Decimal("1599"))
    assert edit.applied and edit.detail["new_price"] == "3247.50"  # x2.5 kept to the cents the page writes
    assert '"price": "3247.50"' in edit.html and 'content="3247.50"' in edit.html  # the dotted, ungrouped spelling
    assert "<span>3.247,50 €</span>" in edit.html  # German grouping and decimal comma kept
    assert "Statt 3.997,50 €" in edit.html  # the list price too
    assert "Width 1299 mm" in edit.html  # the same digits far from any currency or price word are left alone
    assert edit.counts == {"json": 1, "attribute": 1, "text": 1, "list_text": 1}


def test_whole_unit_prices_stay_whole_and_cents_in_their_own_element_follow():
    page = '<body><p class="price">£25</p><p class="price" data-price="173.34">173<sup>34</sup> Lei</p></body>'
    edit = me.scale_price(page, Decimal("25"), Decimal("2.5"))
    assert "£63<" in edit.html and edit.detail["factor"] == "2.520"  # 62.5 rounded up to the page's whole pounds
    split = me.scale_price(page, Decimal("173.34"), Decimal("2.5"))
    assert "433<sup>35</sup> Lei" in split.html and split.counts == {"attribute": 1, "text_split": 1}


def test_an_amount_the_page_does_not_write_is_refused_with_the_reason():
    edit = me.scale_price(SHOP_PAGE, Decimal("450"), Decimal("2.5"))
    assert not edit.applied and edit.html is None and "450" in edit.reason
    assert not me.deal("<body><p>no price here</p></body>", Decimal("450")).applied


def test_rating_stock_and_deal_edit_the_pages_own_markup():
    rating = me.rating_down(SHOP_PAGE)
    assert '"ratingValue": "1.6"' in rating.html and "1.6 von 5" in rating.html and rating.occurrences == 2
    assert not me.rating_down("<body><p>no rating</p></body>").applied
    stock = me.out_of_stock(SHOP_PAGE)
    assert "schema.org/OutOfStock" in stock.html and "In den Warenkorb" not in stock.html
    assert stock.counts == {"availability": 1, "buy_controls_removed": 1}
    offer = me.deal(SHOP_PAGE, Decimal("1299"), list_price=Decimal("1599"))
    assert "Statt 2.598,00 €" in offer.html
    added = me.deal('<body><div class="price"><span>24,90 €</span></div></body>', Decimal("24.90"))
    assert '<s class="price-was" aria-label="was">49,80 €</s>' in added.html


def test_a_price_change_reaches_the_names_that_spell_the_price(product_page):
    """The option "Black $12.99" is named `black_12_99`: a shop that raised the price would show the new one in both; an
    LLM twin reads the names."""
    _, after = facts_after(product_page, "price_x2.5")
    options = [c.name for c in after.candidates if c.name.startswith("product_options.color.")]
    assert options and not any("12_99" in name for name in options)
    assert any("32_48" in name for name in options)
