"""Page facts on real and sample pages: what each product in view costs, how it is rated and delivered,
whether it is in stock, sponsored or on a deal, and whether the page offers a way to buy it.

Known values are read by hand from the pages; variants are made by editing a page's text in the test.
The OPeRA excerpts are from Wang et al. 2025 (arXiv 2506.05606, CC-BY-4.0).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from selectolax.lexbor import LexborHTMLParser

from agent.opera_data import opera_data_dir
from agent.page.facts_model import NO_FACTS
from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html
from service.demo_shop import create_shop_app

PAGES = Path(__file__).resolve().parents[1] / "agent" / "sample_pages"
REAL_SEARCH_PAGE = opera_data_dir().parent / "pages" / "amazon_search_results.html"
SEARCH_URL = "https://www.amazon.com/s?k=basketball+shoes"


def sample(name: str) -> str:
    return (PAGES / f"{name}.html").read_text(encoding="utf-8")


def facts_of(html: str, url: str | None = None):
    return parse_page(html, url).facts


# --- the sample pages -------------------------------------------------------------------------------------


def test_product_page_focus_product_has_every_fact():
    facts = facts_of(sample("product_page"))
    assert facts.focus == 0
    cable = facts.focus_product
    assert cable.title == "Anker USB C Cable, 6ft, Nylon Braided USB A to Type C Charger Cord"
    assert cable.name is None and cable.brand == "Anker"
    assert (cable.price, cable.list_price, cable.rating, cable.review_count) == (12.99, 15.99, 4.7, 48211)
    assert cable.discount == pytest.approx((15.99 - 12.99) / 15.99)
    assert cable.delivery_free is True and cable.delivery_fee is None
    assert cable.delivery_days is None  # "Tuesday, December 2" is a date, not a relative promise
    assert cable.availability == "in_stock" and cable.stock_left is None
    assert cable.sponsored is False and cable.badges == ()
    assert cable.option_count == 8 and facts.option_count == 8
    assert set(cable.buy_names) == {
        "buybox.one_time_purchase.purchase_form.add_to_cart",
        "buybox.subscribe_save.subscribe",
        "buybox.purchase_form.add_to_cart",
        "buybox.purchase_form.buy_now",
    }
    assert facts.can_buy and facts.reviews_shown and facts.search_box


def test_product_page_related_items_are_alternatives_named_by_their_links():
    facts = facts_of(sample("product_page"))
    related = facts.alternatives()
    assert len(related) == 8 and len(facts.products) == 9
    assert related[0].title == "Amazon Basics USB-C to USB-A 2.0 Fast Charging Cable, 6 Foot, Black"
    assert (
        related[0].name
        == "similar_items.amazon_basics_usb_c_to_usb_a_2_0_fast_charging_cable_6_foot_black.product_name"
    )
    assert [p.price for p in related] == [7.49, 19.99, 13.99, 9.99, 19.00, 16.99, 11.99, 8.95]
    assert all(p.buy_names == () for p in related)


def test_search_results_page_has_one_product_per_result():
    facts = facts_of(sample("search_results"))
    assert facts.focus is None and facts.focus_product is None
    assert len(facts.products) == 48
    first = facts.products[0]
    assert first.name == "search_results.anker_usb_c_cable_6ft_nylon_braided_usb_a_to_type_c_charger_cord.product_name"
    assert (first.price, first.list_price, first.rating, first.review_count) == (12.99, 16.24, 4.7, 48211)
    assert first.delivery_free is True and first.delivery_days == 1  # "Or fastest delivery Tomorrow"
    assert first.buy_names == (
        "search_results.anker_usb_c_cable_6ft_nylon_braided_usb_a_to_type_c_charger_cord.add_to_cart",
    )
    assert [i for i, p in enumerate(facts.products) if p.sponsored] == [0, 5, 12]  # the three "Sponsored" labels
    assert facts.products[10].delivery_days is None  # no "Tomorrow" in its delivery line
    assert facts.can_buy and facts.reviews_shown and facts.search_box and facts.option_count == 0


def test_cart_items_are_bought_by_checking_out_but_saved_items_are_not():
    facts = facts_of(sample("cart"))
    assert [p.price for p in facts.products[:3]] == [12.99, 15.99, 17.99]
    assert all(p.buy_names == ("check_out",) and p.availability == "in_stock" for p in facts.products[:3])
    saved = facts.products[3]
    assert saved.name == "saved_for_later.usb_wall_charger.product_detail" and saved.buy_names == ()
    assert facts.focus is None and facts.can_buy


# --- variants made by editing a page's text ---------------------------------------------------------------


def test_out_of_stock_page_with_a_subscribe_button_cannot_buy():
    page = sample("product_page").replace("<span>In Stock</span>", "<span>Currently unavailable.</span>")
    page = re.sub(r'<div name="buybox.one_time_purchase">.*?</div></div>', "", page)  # the page sells none now
    page = re.sub(r'<input name="buybox.purchase_form.(add_to_cart|buy_now)"[^>]*>', "", page)
    facts = facts_of(page)
    assert facts.focus_product.availability == "unavailable"
    assert facts.focus_product.buy_names == ("buybox.subscribe_save.subscribe",)
    assert facts.can_buy is False


def test_low_stock_and_paid_next_day_delivery():
    page = sample("product_page").replace("<span>In Stock</span>", "<span>Only 3 left in stock - order soon.</span>")
    page = page.replace("FREE delivery Tuesday, December 2", "$5.99 delivery Tomorrow, December 2")
    cable = facts_of(page).focus_product
    assert (cable.availability, cable.stock_left) == ("low_stock", 3)
    assert (cable.delivery_free, cable.delivery_fee, cable.delivery_days) == (False, 5.99, 1)
    assert facts_of(page).can_buy


@pytest.mark.parametrize(
    "label, expected",
    [("List Price: $15.99", 15.99), ("Was: $21.00", 21.00), ("Typical price: $14.49", 14.49), ("", None)],
)
def test_list_price_wordings(label, expected):
    page = sample("product_page").replace("<span>List Price: $15.99</span>", f"<span>{label}</span>")
    cable = facts_of(page).focus_product
    assert cable.list_price == expected and cable.price == 12.99
    assert (cable.discount is None) == (expected is None)


def test_search_result_badges_deals_and_coupons():
    page = sample("search_results").replace(
        '<span class="a-size-small">5000+ bought in past month</span>',
        "<span>Best Seller</span><span>Amazon's Choice</span><span>Limited time deal</span>"
        "<span>Save 10% with coupon</span>",
        1,
    )
    products = facts_of(page).products
    assert products[0].badges == ("best_seller", "amazons_choice", "limited_time_deal", "coupon")
    assert products[1].badges == ()


def test_a_page_without_products():
    home = (
        '<html><body><div name="nav_bar"><input name="nav_bar.search_input" type="text">'
        '<div name="nav_bar.homepage">Homepage</div></div><p>Welcome. In Stock deals, FREE delivery.</p></body></html>'
    )
    facts = facts_of(home, "https://www.amazon.com/")
    assert facts.products == () and facts.focus is None and facts.can_buy is False and facts.search_box
    assert parse_page("").facts is NO_FACTS and parse_page(None).facts is NO_FACTS


# --- OPeRA's simplified HTML -------------------------------------------------------------------------------

OPERA_PRODUCT = """<html><head></head><body><div name="nav_bar" role="navigation" aria-label="Primary">
<div name="nav_bar.homepage">Homepage</div><form role="search"><select name="nav_bar.search_drop_down_list"
title="Search in"></select><input name="nav_bar.search_input" value="" type="text" role="searchbox"
aria-label="Search Amazon"></form></div><div name="product_rating"><a name="reviews.star_rating"
aria-label="4.6 out of 5 stars">4.6 4.6 out of 5 stars</a><span name="reviews" aria-label="23 Reviews">(23)</span></div>
<span class="product-price">Price: $6.99</span>
<div name="product_options" class="product-options"><div name="product_options.style"><div><span>Style:</span>
<span>Dolphin</span></div><ul name="product_options.style.button_list" role="radiogroup">
<li name="product_options.style.button_list.dolphin_6_99_6_99">Dolphin $6.99 $6.99</li>
<li name="product_options.style.button_list.whale_7_49_7_49">Whale $7.49 $7.49</li></ul></div></div>
<div name="buybox"><div name="buybox.purchase_form.quantity_selector"><label>Quantity:</label></div>
<input name="buybox.purchase_form.add_to_cart" type="submit" value="Add to Cart"></div></body></html>"""


def test_opera_product_excerpt():
    observation = parse_page(OPERA_PRODUCT, "https://www.amazon.com/dp/B0EXAMPLE1")
    toy = observation.facts.focus_product
    assert (toy.price, toy.rating, toy.review_count, toy.option_count) == (6.99, 4.6, 23, 2)
    assert toy.buy_names == ("buybox.purchase_form.add_to_cart",) and observation.facts.can_buy
    assert toy.availability is None and toy.delivery_free is None  # the excerpt does not say
    assert toy.currency == "USD" and toy.source_of("price") == "visible"


def test_opera_search_names_without_a_result_container():
    """OPeRA names a result's parts `search_results.<slug>.*`; the parts alone make one product."""
    page = (
        '<html><body><a name="search_results.kids_bath_toy.product_image"><img alt="Kids Bath Toy"></a>'
        '<a name="search_results.kids_bath_toy.product_name">Kids Bath Toy</a>'
        '<span name="search_results.kids_bath_toy.product_price">$6.99</span>'
        '<a name="search_results.cup_set.product_name">Cup Set</a></body></html>'
    )
    facts = facts_of(page, "https://www.amazon.com/s?k=bath+toy")
    assert [p.title for p in facts.products] == ["Kids Bath Toy", "Cup Set"]
    assert facts.products[0].name == "search_results.kids_bath_toy.product_name"
    assert [p.price for p in facts.products] == [6.99, None]


# --- the real raw search page, through the simplifier ------------------------------------------------------


@pytest.fixture(scope="module")
def real_search():
    raw = REAL_SEARCH_PAGE.read_text(encoding="utf-8")
    return raw, parse_page(simplify_html(raw, SEARCH_URL).html, SEARCH_URL).facts


def test_real_search_page_products_prices_and_ratings(real_search):
    raw, facts = real_search
    results = LexborHTMLParser(raw).css('div[data-component-type="s-search-result"]')
    assert len(facts.products) == len(results) == 59 and facts.focus is None
    peak = facts.products[0]  # read from the raw page: PEAK, $59.49 (list $69.99), 4.5 stars, 5,513 ratings
    assert peak.title.startswith("High Top Mens Basketball Shoes Lou Williams") and peak.brand == "PEAK"
    assert (peak.price, peak.list_price, peak.rating, peak.review_count) == (59.49, 69.99, 4.5, 5513)
    assert peak.delivery_free is True and peak.sponsored and "limited_time_deal" in peak.badges
    assert facts.products[2].brand == "Under Armour" and facts.products[2].price == 64.99
    assert (facts.products[27].availability, facts.products[27].stock_left) == ("low_stock", 4)
    assert facts.products[26].badges == ("coupon",)  # "Save 5% with coupon"
    assert facts.can_buy is False  # this page has no add-to-cart buttons


def test_real_search_page_sponsored_flags_match_the_ad_labels(real_search):
    raw, facts = real_search
    results = LexborHTMLParser(raw).css('div[data-component-type="s-search-result"]')
    labelled = [r.css_first(".s-sponsored-label-text, .puis-sponsored-label-text") is not None for r in results]
    assert sum(labelled) == 11
    assert [p.sponsored for p in facts.products] == labelled


# --- the demo shop's product page --------------------------------------------------------------------------


@pytest.mark.parametrize("variant, price, list_price, days", [("a", 59.99, None, 2), ("b", 50.99, 59.99, 1)])
def test_demo_shop_product_page(variant, price, list_price, days):
    with TestClient(create_shop_app()) as shop:
        response = shop.get(f"/dp/B0TWIN0001?variant={variant}")
    assert response.status_code == 200
    page = simplify_html(response.text, url=str(response.url))
    facts = parse_page(page.html, str(response.url)).facts
    shoes = facts.focus_product
    assert shoes.title == "Trailblazer Men's Running Shoes, Lightweight Breathable Mesh Sneakers"
    assert shoes.brand == "Trailblazer" and (shoes.rating, shoes.review_count) == (4.4, 2871)
    assert (shoes.price, shoes.list_price) == (price, list_price)
    assert shoes.delivery_free is True and shoes.delivery_days == days and shoes.availability == "in_stock"
    assert shoes.option_count == 8 == facts.option_count  # 3 colours, 5 sizes
    assert set(shoes.buy_names) == {"buybox.purchase_form.add_to_cart", "buybox.purchase_form.buy_now"}
    assert facts.can_buy and facts.reviews_shown


# --- raw product, cart and shop pages through the simplifier (tests/fixtures/raw_pages) ---------------------

RAW = Path(__file__).parent / "fixtures" / "raw_pages"


def raw_facts(name: str, url: str):
    page = simplify_html((RAW / f"{name}.html").read_text(encoding="utf-8"), url)
    return parse_page(page.html, url).facts


def test_raw_amazon_product_page():
    facts = raw_facts("amazon_product", "https://www.amazon.com/dp/B083GBKZ5B")
    bottle = facts.focus_product
    assert bottle.title == "Hydro Flask Wide Mouth Bottle with Flex Cap, 32 oz" and bottle.brand == "Hydro Flask"
    assert (bottle.price, bottle.list_price, bottle.rating, bottle.review_count) == (44.95, 49.95, 4.8, 31572)
    assert bottle.delivery_free is True and bottle.availability == "in_stock" and bottle.option_count == 8
    assert bottle.buy_names == ("buybox.purchase_form.add_to_cart", "buybox.purchase_form.buy_now")
    assert [(p.title, p.price) for p in facts.alternatives()] == [
        ("Owala FreeSip Insulated Stainless Steel Water Bottle, 24 oz", 27.99),
        ("Stanley IceFlow Flip Straw Tumbler 30 oz", 35.0),
    ]


@pytest.mark.parametrize(
    "name, price, list_price, rating, reviews",
    [("amazon_product_2019", 29.99, 39.99, 4.6, 18214), ("amazon_product_2024", 15.99, 19.99, 4.7, 14860)],
)
def test_raw_amazon_product_pages_older_and_newer_markup(name, price, list_price, rating, reviews):
    product = raw_facts(name, "https://www.amazon.com/dp/B0EXAMPLE1").focus_product
    assert (product.price, product.list_price, product.rating, product.review_count) == (
        price,
        list_price,
        rating,
        reviews,
    )
    assert product.availability == "in_stock" and len(product.buy_names) == 2


def test_raw_amazon_cart_low_stock_item():
    facts = raw_facts("amazon_cart", "https://www.amazon.com/gp/cart/view.html")
    assert [p.price for p in facts.products] == [44.95, 27.99, 35.0]
    assert (facts.products[1].availability, facts.products[1].stock_left) == ("low_stock", 3)
    assert [bool(p.buy_names) for p in facts.products] == [True, True, False]  # the third is saved for later


def test_any_shop_through_the_generic_simplifier():
    """Cards named by their titles are products when they show a price; a struck price is the list price."""
    facts = raw_facts("generic_shop", "https://shop.example/mugs")
    assert [(p.title, p.price, p.list_price) for p in facts.products] == [
        ("Blue Speckled Mug", 24.0, None),
        ("White Espresso Cup", 14.5, 18.0),
        ("Stoneware Travel Cup", 32.0, None),
    ]
    assert [(p.rating, p.review_count) for p in facts.products[:2]] == [(4.5, 128), (4.0, 57)]
    sold_out = facts.products[2]
    assert sold_out.availability == "unavailable" and sold_out.buy_names == ()
    assert facts.products[0].buy_names == ("main.blue_speckled_mug.add_to_cart",) and facts.can_buy


def test_a_product_url_that_shows_no_product_has_no_focus():
    """A bot check or error page served at a product's address: nothing to price, rate or buy."""
    page = (
        "<html><head><title>Amazon.com</title></head><body><h4>Click the button below to continue shopping</h4>"
        '<button name="continue_shopping">Continue shopping</button></body></html>'
    )
    facts = facts_of(page, "https://www.amazon.com/dp/B0D1XD1ZV3")
    assert facts.focus is None and facts.products == () and facts.can_buy is False


def test_words_in_a_title_are_not_badges_and_some_sizes_unavailable_is_not_out_of_stock():
    title = "Anker USB C Cable, 6ft, Nylon Braided USB A to Type C Charger Cord"
    page = (
        sample("search_results")
        .replace(title, "Best Seller Deal Pack USB C Cable", 3)
        .replace(
            '<span class="a-size-small">5000+ bought in past month</span>',
            "<span>Some sizes unavailable</span><span>Currently unavailable.</span>",
            1,
        )
    )
    first = facts_of(page).products[0]
    assert first.title == "Best Seller Deal Pack USB C Cable" and first.badges == ()
    assert first.availability == "unavailable"
    second = facts_of(page.replace("<span>Currently unavailable.</span>", "", 1)).products[0]
    assert second.availability is None


def test_price_and_stock_filled_in_by_javascript_come_from_the_pages_metadata():
    """A raw page shows "--" where the browser would show the price; OpenGraph metadata says it."""
    head = (
        '<head><title>Sink</title><meta property="og:type" content="product">'
        '<meta property="product:price:amount" content="329.99"><meta property="og:availability" content="instock">'
        "</head>"
    )
    body = (
        "<body><main><h1>AFA Stainless Sink</h1><p>Your Price --$</p><p>Earn $25 back in rewards</p>"
        '<form><button type="submit" class="add-to-cart">Add to Cart</button></form></main></body>'
    )
    page = simplify_html(f"<html>{head}{body}</html>", "https://shop.example/sink.html")
    sink = parse_page(page.html).facts.focus_product
    assert (sink.title, sink.price, sink.availability) == ("AFA Stainless Sink", 329.99, "in_stock")
    assert sink.source_of("price") == "meta" and sink.source_of("availability") == "meta"
    shown = simplify_html(f"<html>{head}{body.replace('Your Price --$', 'Your Price $299.00')}</html>")
    facts = parse_page(shown.html).facts  # what the page declares comes first; the disagreement is noted
    assert facts.focus_product.price == 329.99
    assert facts.notes == ("price: opengraph says 329.99 USD, the page shows 299.00 USD",)
    plain = simplify_html(f"<html><head><title>Sink</title></head>{body}</html>")
    assert parse_page(plain.html).facts.focus_product.price is None  # "$25 back" is no price
