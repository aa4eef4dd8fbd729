"""Click types from OPeRA's name patterns (README of the shared OPeRA data)."""

from __future__ import annotations

import pytest

from agent.page.click_types import CLICK_TYPES, infer_click_type


@pytest.mark.parametrize(
    "name, expected",
    [
        ("nav_bar.search_input", "search"),
        ("nav_bar.search_button", "search"),
        ("nav_bar.homepage", "nav_bar"),
        ("nav_bar.cart_button", "nav_bar"),
        ("nav_bar.suggested_terms.usb_c_cable_10ft", "suggested_term"),
        ("search_results.anker_usb_c_cable.product_name", "product_link"),
        ("search_results.anker_usb_c_cable.product_image", "product_link"),
        ("search_results.anker_usb_c_cable.add_to_cart", "purchase"),
        ("4_stars_and_above.anker_usb_c_cable.product_title", "product_link"),
        ("product_options.style.button_list.dolphin_6_99_6_99", "product_option"),
        ("buybox.purchase_form.add_to_cart", "purchase"),
        ("buybox.purchase_form.buy_now", "purchase"),
        ("buybox.one_time_purchase.purchase_form.add_to_cart", "purchase"),
        ("buybox.purchase_form.quantity_selector", "quantity"),
        ("check_out", "purchase"),
        ("refinements.brand.anker", "filter"),
        ("refinements_toolbar.price", "filter"),
        ("cart_side_bar.product_list.anker.decrease_quantity_by_one", "cart_side_bar"),
        ("cart_side_bar.go_to_cart", "cart_side_bar"),
        ("active_item_list.anker.product_detail", "product_link"),
        ("active_item_list.anker.checkbox", "cart_page_select"),
        ("active_item_list.anker.delete", "other"),
        ("reviews.popover.review_images.next", "review"),
        ("reviews.popover.close", "review"),
        ("reviews", "review"),
        ("pagination.next_page", "page_related"),
        ("similar_items.carousel_next", "page_related"),
        ("breadcrumbs.electronics", "other"),
    ],
)
def test_opera_name_patterns(name, expected):
    assert infer_click_type(name) == expected


def test_every_answer_is_an_opera_click_type():
    for name in ("x", "a.b.c", "reviews.filter.5_star", "nav_bar.account", "deselect_all_items", "UPPER.Case.Name"):
        assert infer_click_type(name) in CLICK_TYPES


def test_text_hint_for_names_that_say_little():
    assert infer_click_type("widget_17", "button", "Add to Cart") == "purchase"
    assert infer_click_type("widget_17", "button", "Learn more") == "other"


@pytest.mark.parametrize(
    "name, expected",
    [
        ("item.form.fai_un_offerta", "purchase"),  # ebay.it's bid
        ("item.form.compralo_subito", "purchase"),  # ebay.it's buy it now
        ("item.form.achat_immediat", "purchase"),
        ("main.jetzt_bieten", "purchase"),
        ("main.was_wir_bieten", "other"),  # "what we offer": not a bid
        ("sidebar.kontaktieren", "other"),  # a question to the seller, unless the page has nothing that buys
    ],
)
def test_a_marketplaces_own_words_for_buying_and_bidding(name, expected):
    assert infer_click_type(name) == expected
