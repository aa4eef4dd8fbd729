"""The demo shop's pages through the simplifier: OPeRA's names, present and unique, prices kept, the
page types the twins' graph expects, and the A/B switch visible in what twins read."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from selectolax.lexbor import LexborHTMLParser

from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html
from agent.page.simplifier.slug import slugify
from service.demo_shop import create_shop_app
from service.demo_shop.catalog import BY_ASIN, PRODUCTS

SHOES = BY_ASIN["B0TWIN0001"]
SHOES_SLUG = slugify(SHOES.title)


@pytest.fixture
def shop():
    with TestClient(create_shop_app()) as client:
        yield client


def read(client: TestClient, path: str, **kwargs):
    response = client.post(path, **kwargs) if "data" in kwargs else client.get(path, **kwargs)
    assert response.status_code == 200, response.text
    page = simplify_html(response.text, url=str(response.url))
    assert len(page.names) == len(set(page.names)), "names must be unique"
    return page, parse_page(page.html, url=str(response.url))


def text_of(page, name: str) -> str:
    node = LexborHTMLParser(page.html).css_first(f'[name="{name}"]')
    assert node is not None, f"{name} missing; names: {page.names}"
    return node.text(deep=True, separator=" ", strip=True) or node.attributes.get("alt") or ""


def test_home_page(shop):
    page, observation = read(shop, "/")
    assert {"nav_bar.search_input", "nav_bar.search_button", "nav_bar.cart_button", "nav_bar.homepage"} <= set(
        page.names
    )
    assert observation.page_type == "home" and observation.by_name["nav_bar.search_input"].kind == "input"
    assert any(name.endswith(".title") and name.startswith("main.popular_right_now.") for name in page.names)


def test_search_results_keep_every_product_with_its_price(shop):
    page, observation = read(shop, "/s?k=shoes")
    assert page.recipe == "amazon_search" and observation.page_type == "search_results"
    shoes = [p for p in PRODUCTS if p.department == "Shoes"]
    for product in shoes:
        slug = slugify(product.title)
        assert text_of(page, f"search_results.{slug}.product_name") == product.title
        assert text_of(page, f"search_results.{slug}.product_price") == f"${product.price:,.2f}"
        assert observation.by_name[f"search_results.{slug}.add_to_cart"].click_type == "purchase"
    assert "refinements.department.kitchen" in page.names and "refinements.price.under_30" in page.names
    assert text_of(page, "nav_bar.search_input") == "" and 'value="shoes"' in page.html


def test_unknown_query_shows_popular_items_instead(shop):
    page, _ = read(shop, "/s?k=zzzz")
    assert "No results" in page.html
    assert sum(name.endswith(".product_name") for name in page.names) == len(PRODUCTS)


def test_product_page_has_opera_names_options_and_reviews(shop):
    page, observation = read(shop, f"/dp/{SHOES.asin}?color=Black")
    assert page.recipe == "amazon_product" and observation.page_type == "product"
    assert text_of(page, "product_title") == SHOES.title
    assert text_of(page, "product_price") == "Price: $59.99"
    assert text_of(page, "reviews") == "(2,871)"
    for name in (
        "product_options.color.button_list.black",
        "product_options.size.button_list.10",
        "buybox.purchase_form.add_to_cart",
        "buybox.purchase_form.buy_now",
        "buybox.purchase_form.quantity_selector",
        "customer_reviews.see_all_reviews",
        "customer_reviews.histogram.5_star",
    ):
        assert name in page.names
    assert text_of(page, "product_options.color").startswith("Color: Black")  # the current choice is shown
    assert observation.by_name["product_options.color.button_list.black"].click_type == "product_option"
    assert observation.by_name["reviews"].click_type == "review"


def test_cart_and_checkout_after_adding(shop):
    shop.post(
        "/cart/add",
        data={"asin": SHOES.asin, "color": "Blue", "size": "10", "quantity": "2", "submit.add-to-cart": "Add to Cart"},
    )
    page, observation = read(shop, "/gp/cart/view.html")
    assert page.recipe == "amazon_cart" and observation.page_type == "cart"
    item = f"active_item_list.{SHOES_SLUG}"
    assert {f"{item}.product_detail", f"{item}.delete", f"{item}.increase_quantity_by_one", "check_out"} <= set(
        page.names
    )
    assert "$59.99" in page.html and "Qty: 2" in page.html and "$119.98" in page.html
    assert observation.by_name["check_out"].click_type == "purchase"

    line = f"{SHOES.asin}~Blue~10"
    page, _ = read(shop, "/cart/update", data={"line": line, "op": "increment"})
    assert "Qty: 3" in page.html
    _checkout, observation = read(shop, "/checkout")
    assert observation.page_type == "checkout"
    assert observation.by_name["main.payment.place_order"].click_type == "purchase"
    done = shop.post("/checkout/place-order")
    assert "/order-placed?order=" in str(done.url) and "Order placed" in done.text
    page, _ = read(shop, "/gp/cart/view.html")
    assert "check_out" not in page.names and "is empty" in page.html


def test_variant_b_shows_the_sale_and_leads_with_buy_now(shop):
    page_a, _ = read(shop, f"/dp/{SHOES.asin}")
    page_b, _ = read(shop, f"/dp/{SHOES.asin}?variant=b")
    assert text_of(page_b, "product_price") == "Price: $50.99" and "Spring sale: 15% off" in page_b.html
    assert "15% off" not in page_a.html
    raw_b = shop.get(f"/dp/{SHOES.asin}?variant=b").text  # people see Buy Now first; the recipe lists rules in order
    assert raw_b.index('id="buy-now-button"') < raw_b.index('id="add-to-cart-button"')
    assert {"buybox.purchase_form.add_to_cart", "buybox.purchase_form.buy_now"} <= set(page_b.names)
    remembered, _ = read(shop, "/s?k=shoes")  # the cookie keeps the variant on later pages
    assert text_of(remembered, f"search_results.{SHOES_SLUG}.product_price") == "$50.99"


def test_names_are_stable_across_reloads_and_unknown_pages_are_404(shop):
    assert read(shop, f"/dp/{SHOES.asin}")[0].names == read(shop, f"/dp/{SHOES.asin}")[0].names
    assert shop.get("/dp/B0NOPE").status_code == 404
    assert shop.get("/no/such/page").status_code == 404
