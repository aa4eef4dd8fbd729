"""The OPeRA simplified-HTML parser on realistic pages: candidates, kinds, click types, prices, page types."""

from __future__ import annotations

from agent.page.click_types import CLICK_TYPES
from agent.page.parse import parse_page
from tests.conftest import page


def test_search_results_page():
    obs = parse_page(page("search_results.html"), url="https://www.amazon.com/s?k=usb+c+cable")
    assert obs.page_type == "search_results"
    assert obs.title == "Amazon.com : usb c cable"
    assert [c.position for c in obs.candidates] == list(range(len(obs.candidates)))
    search_input = obs.by_name["nav_bar.search_input"]
    assert search_input.kind == "input" and search_input.click_type == "search"
    assert obs.by_name["nav_bar.search_button"].kind == "clickable"
    assert [c.name for c in obs.candidates if c.kind == "input"] == ["nav_bar.search_input"]
    title = "search_results.anker_usb_c_cable_6ft_nylon_braided_usb_a_to_type_c_charger_cord"
    assert obs.by_name[f"{title}.product_name"].click_type == "product_link"
    assert obs.by_name[f"{title}.product_name"].text.startswith("Anker USB C Cable, 6ft")
    assert obs.by_name[f"{title}.product_price"].price == 12.99
    assert obs.by_name[f"{title}.add_to_cart"].click_type == "purchase"
    assert obs.by_name[f"{title}.product_image"].text.startswith("Anker")  # from alt
    assert obs.by_name["refinements.brand.anker"].click_type == "filter"
    assert obs.by_name["nav_bar.suggested_terms.usb_c_cable_10ft"].click_type == "suggested_term"
    assert obs.by_name["pagination.next_page"].click_type == "page_related"
    assert obs.by_name["cart_side_bar.go_to_cart"].click_type == "cart_side_bar"
    # containers are not candidates
    for container in ("nav_bar", "refinements", f"{title}", "refinements.brand", "pagination"):
        assert container not in obs.by_name
    assert all(c.click_type in CLICK_TYPES for c in obs.candidates)
    assert len(obs.text) <= 2000 and "usb c cable" in obs.text.lower()


def test_product_page_with_options_and_reviews():
    obs = parse_page(page("product_page.html"), url="https://www.amazon.com/dp/B0TEST")
    assert obs.page_type == "product"
    assert obs.title.startswith("Amazon.com: Anker USB C Cable")
    options = [c for c in obs.candidates if c.click_type == "product_option"]
    assert {c.name for c in options} >= {
        "product_options.size.button_list.6_ft",
        "product_options.color.button_list.black_12_99_12_99",
    }
    assert obs.by_name["product_options.color.button_list.red_13_49_13_49"].price == 13.49
    assert obs.by_name["buybox.purchase_form.add_to_cart"].click_type == "purchase"
    assert obs.by_name["buybox.purchase_form.buy_now"].click_type == "purchase"
    assert obs.by_name["buybox.one_time_purchase.purchase_form.add_to_cart"].click_type == "purchase"
    assert obs.by_name["buybox.purchase_form.quantity_selector"].click_type == "quantity"
    assert obs.by_name["reviews"].click_type == "review" and "48,211" in obs.by_name["reviews"].text
    assert obs.by_name["reviews.popover.review_images.next"].click_type == "review"
    assert obs.by_name["similar_items.carousel_next"].click_type == "page_related"


def test_cart_page():
    obs = parse_page(page("cart.html"), url="https://www.amazon.com/gp/cart/view.html")
    assert obs.page_type == "cart"
    item = "active_item_list.anker_usb_c_cable_6ft_nylon_braided"
    assert obs.by_name[f"{item}.checkbox"].click_type == "cart_page_select"
    assert obs.by_name[f"{item}.checkbox"].kind == "clickable"  # a checkbox is not a text field
    assert obs.by_name[f"{item}.product_detail"].click_type == "product_link"
    assert obs.by_name[f"{item}.decrease_quantity_by_one"].click_type == "quantity"
    assert obs.by_name["check_out"].click_type == "purchase"


def test_broken_html_still_yields_candidates():
    broken = (
        '<html><body><div name="nav_bar"><input name="nav_bar.search_input" type="text">'
        '<a name="nav_bar.cart_button">Cart <b>3</div> stray text <li name="product_options.size.button_list.m">M'
    )
    obs = parse_page(broken)
    assert {"nav_bar.search_input", "nav_bar.cart_button", "product_options.size.button_list.m"} <= set(obs.by_name)


def test_empty_and_missing_pages():
    for html in (None, "", "   "):
        obs = parse_page(html, url="https://example.com/x")
        assert obs.empty and obs.page_type == "none" and obs.url == "https://example.com/x"
    assert parse_page("<html><body><p>No names here</p></body></html>").empty


def test_duplicate_names_keep_the_first_and_positions_stay_unique():
    html = '<a name="a.one">First</a><a name="a.one">Second</a><a name="a.two">Two</a>'
    obs = parse_page(html)
    assert [c.name for c in obs.candidates] == ["a.one", "a.two"]
    assert obs.by_name["a.one"].text == "First"
    assert [c.position for c in obs.candidates] == [0, 1]


def test_hidden_inputs_scripts_and_labels():
    html = (
        '<input name="token" type="hidden" value="x"><script>var name="x"</script>'
        '<span name="reviews.close" role="button" aria-label="Close reviews"></span>'
        '<textarea name="review_form.body"></textarea><input name="filters.in_stock" type="checkbox">'
    )
    obs = parse_page(html)
    assert "token" not in obs.by_name
    assert obs.by_name["reviews.close"].text == "Close reviews"
    assert obs.by_name["review_form.body"].kind == "input"
    assert obs.by_name["filters.in_stock"].kind == "clickable"
