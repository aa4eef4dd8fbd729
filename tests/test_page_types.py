"""One rule for page types (agent/page/page_types.classify_page), used by the twin and the simplifier: Amazon's URLs
and OPeRA's names, the URL shapes of the common shop platforms, what the page declares, then what it shows."""

from __future__ import annotations

import pytest

from agent.page.page_types import (
    Shown,
    asks_delivery_and_payment,
    classify_page,
    shows_checkout_steps,
    title_page_type,
    url_page_type,
)
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


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["Panier", "Identification", "Livraison", "Paiement", "Validation"], True),  # a real French shop's bar
        (["1", "Cart", "2", "Information", "3", "Shipping", "4", "Payment"], True),  # numbers between the steps
        (["Schritt 1: Warenkorb", "Schritt 2: Adresse", "Schritt 3: Zahlung"], True),
        (["Carrello >", "Spedizione >", "Pagamento >", "Conferma"], True),
        (["Information", "Delivery", "Payment", "Returns", "Contact"], False),  # a footer's help pages
        (["Add to basket", "Free delivery", "Secure payment"], False),  # a product page's promises
        (["Cart", "Shipping", "Your order history", "Payment"], False),  # not one after the other
    ],
)
def test_a_checkouts_steps_among_the_pages_text(texts, expected):
    assert shows_checkout_steps(texts) is expected


def test_a_form_asking_where_to_deliver_and_how_to_pay():
    italian = ["# Nome: nome", "# Indirizzo: indirizzo", "# CAP: cap", "# Città: citta", "Telefono: telefono"]
    assert asks_delivery_and_payment(italian, ["PayPal o carte di credito", "Contrassegno (€ 18,00)"])
    sign_up = ["First name", "Last name", "Street address", "Postcode", "Town", "Phone"]
    assert not asks_delivery_and_payment(sign_up, ["Create my account"])  # no way to pay: a sign-up
    assert not asks_delivery_and_payment(["Email", "Your name"], ["PayPal"])  # a newsletter beside a payment logo


CHECKOUT_WITHOUT_A_CHECKOUT_ADDRESS = """<html><head><title>Ordina su Negozio</title></head><body>
<h1>Il tuo ordine</h1><p>1 x Chitarra classica € 129,00</p>
<form action="/ordina.asp" method="post">
  <label>Nome <input name="nome"></label> <label>Cognome <input name="cognome"></label>
  <label>Indirizzo <input name="indirizzo"></label> <label>CAP <input name="cap"></label>
  <label>Città <input name="citta"></label> <label>Telefono <input name="telefono"></label>
  <p>Metodo di pagamento</p>
  <label><input type="radio" name="pagamento" value="pp"> PayPal o carte di credito</label>
  <label><input type="radio" name="pagamento" value="bb"> Bonifico bancario anticipato</label>
  <button type="submit">Acquista</button>
</form></body></html>"""

SIGN_UP = CHECKOUT_WITHOUT_A_CHECKOUT_ADDRESS.replace("Ordina", "Registrati").replace(
    """<p>Metodo di pagamento</p>
  <label><input type="radio" name="pagamento" value="pp"> PayPal o carte di credito</label>
  <label><input type="radio" name="pagamento" value="bb"> Bonifico bancario anticipato</label>""",
    "",
)

STEPS = """<html><head><title>Boutique</title></head><body><table><tr><td>Panier</td><td>Identification</td>
<td>Livraison</td><td>Paiement</td><td>Validation</td></tr></table><h1>Identifiez-vous</h1>
<form><input name="email" aria-label="email"><input type="password" name="password">
<button>Continuer</button></form></body></html>"""


def test_a_checkout_is_told_by_what_it_shows_where_its_address_and_title_say_nothing():
    from agent.page.parse import parse_page

    for url in ("https://negozio.example/ordina.asp?id=1093", "https://another.example/page?id=7"):
        page = parse_page(simplify_html(CHECKOUT_WITHOUT_A_CHECKOUT_ADDRESS, url).html, url)
        assert page.page_type == "checkout"
        assert page.by_name[next(n for n in page.by_name if n.endswith("acquista"))].click_type == "purchase"
    assert parse_page(simplify_html(SIGN_UP, "https://negozio.example/a.asp").html).page_type != "checkout"
    steps = simplify_html(STEPS, "https://boutique.example/adresse_e_mail.cfm")
    assert steps.page_type == parse_page(steps.html, "https://boutique.example/adresse_e_mail.cfm").page_type
    assert steps.page_type == "checkout"
