"""One rule for page types (agent/page/page_types.classify_page), used by the twin and the simplifier: Amazon's URLs
and OPeRA's names, the URL shapes of the common shop platforms, what the page declares, then what it shows."""

from __future__ import annotations

import pytest

from agent.page.page_types import Shown, classify_page, title_page_type, url_page_type
from agent.page.simplifier import simplify_html


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://shop.example/products/linen-shirt", "product"),  # Shopify
        ("https://shop.example/collections/shirts", "search_results"),
        ("https://shop.example/cart", "cart"),
        ("https://shop.example/checkouts/c/1a2b3c", "checkout"),
        ("https://shop.example/product/linen-shirt/", "product"),  # WooCommerce
        ("https://shop.example/product-category/shirts/", "search_results"),
        ("https://shop.example/shop/", "search_results"),
        ("https://shop.example/checkout/cart/", "cart"),  # Magento
        ("https://shop.example/catalogsearch/result/?q=shirt", "search_results"),
        ("https://shop.example/checkout/#shipping", "checkout"),
        ("https://shop.example/on/demandware.store/Sites-x-Site/en_GB/Cart-Show", "cart"),  # Salesforce Commerce
        ("https://shop.example/on/demandware.store/Sites-x-Site/en_GB/Product-Show?pid=1", "product"),
        ("https://shop.example/index.php?controller=cart&action=show", "cart"),  # PrestaShop
        ("https://shop.example/index.php?id_product=3&controller=product", "product"),
        ("https://shop.example/index.php?controller=order", "checkout"),
        ("https://shop.example/basket/", "cart"),
        ("https://shop.example/checkout/shipping-address/", "checkout"),
        ("https://shop.example/search/?q=socks", "search_results"),
        ("https://shop.example/search?category=5942&sort=price_a", "search_results"),  # a search filtered, no words
        ("https://shop.example/research?topic=led", "other"),
        ("https://shop.example/about-us", "other"),
    ],
)
def test_url_shapes_of_the_common_platforms(url, kind):
    assert url_page_type(url) == kind


def test_the_rules_in_order():
    assert classify_page("https://www.amazon.com/dp/B0EXAMPLE1") == "product"
    assert classify_page(None, ["search_results.mug.product_name"]) == "search_results"
    assert classify_page("https://shop.example/stuff/kettle.html", declared="product") == "product"
    assert classify_page("https://shop.example/stuff/kettles.html", declared="listing") == "search_results"
    assert classify_page("https://shop.example/x", shown=Shown(one_product=True)) == "product"
    assert classify_page("https://shop.example/x", shown=Shown(listed=5)) == "search_results"
    assert classify_page("https://shop.example/x", shown=Shown()) == "other"
    assert classify_page("https://shop.example/basket/", declared="product") == "cart"  # the address comes first


def test_the_simplifier_uses_the_same_rule_with_buttons_in_the_shops_languages():
    one = "<html><body><h1>Kettle</h1><p>39,90 €</p><button>In den Warenkorb</button></body></html>"
    many = (
        "<html><body><h1>Kettles</h1>"
        + "<div><p>Kettle</p><button>Ajouter au panier</button></div>" * 3
        + "</body></html>"
    )
    assert simplify_html(one, "https://shop.example/x").page_type == "product"
    assert simplify_html(many, "https://shop.example/x").page_type == "search_results"
    assert (
        simplify_html(
            "<html><body><h1>Summary</h1><button>Zur Kasse</button></body></html>", "https://shop.example/x"
        ).page_type
        == "other"
    )  # a checkout button is no product
    assert (
        simplify_html(
            "<html><body><h1>Cart</h1><button>Zur Kasse</button></body></html>", "https://shop.example/x"
        ).page_type
        == "cart"
    )  # where the page's title names it


@pytest.mark.parametrize(
    "title, expected",
    [
        ("Your Cart - Fire Mountain Gems & Beads Jewelry Supply", "cart"),
        ("Shop | Shopping Cart", "cart"),
        ("Your Shopping Cart – Shop", "cart"),
        ("Warenkorb | jpc", "cart"),
        ("Mon panier - Boutique", "cart"),
        ("Secure Checkout", "checkout"),
        ("Kasse - Shop", "checkout"),
        ("Pony Cart Harness - Fit Up To 10/11 Hh - Used", "other"),  # a product with "cart" in its name
        ("Golf Cart Cover | Brand", "other"),
        ("Chaussures de basket | Decathlon", "other"),  # basketball shoes
        ("Tote Bag - Shop", "other"),
        ("", "other"),
    ],
)
def test_a_page_title_that_names_a_cart_or_a_checkout(title, expected):
    assert title_page_type(title) == expected


def test_the_title_comes_after_the_address_and_before_what_the_page_shows():
    shows_a_product = Shown(one_product=True)
    assert classify_page("https://shop.example/x", shown=shows_a_product, title="Your Cart - Shop") == "cart"
    assert classify_page("https://shop.example/products/kettle", title="Your Cart - Shop") == "product"
