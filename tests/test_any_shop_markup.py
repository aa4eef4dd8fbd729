"""Markup patterns of shops twinsim has no recipe for, as the generic simplifier, the page facts and the page types
meet them (django-oscar's templates have every one; the markup here is written by hand, with no shop's names):
a section listing product tiles, stars drawn by a class word, a product's own drop-down in its add-to-cart form,
an add-to-cart in a tile's own form, a sold-out product page with no buy button, a basket at /basket/, "Add to
basket" wording, the cart link of the header and the "view cart" of an added-to-cart message."""

from __future__ import annotations

import pytest

from agent.page.click_types import infer_click_type
from agent.page.fact_texts import availability
from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html

TILE = """<li class="col"><article class="product_pod">
  <a href="/catalogue/{slug}/"><img src="/media/x.jpg" alt="{title}"></a>
  <p class="star-rating {stars}"><i></i><i></i><i></i><i></i><i></i></p>
  <h3><a href="/catalogue/{slug}/" title="{title}">{title}</a></h3>
  <div class="product_price"><p class="price_color">{price}</p><p class="availability">{stock}</p>{buy}</div>
</article></li>"""
BUY = (
    '<form action="/basket/add/1/" method="post"><input type="hidden" name="quantity" value="1">'
    '<button type="submit">Add to basket</button></form>'
)
HEADER = """<header><a href="/">Outfitters</a><a href="/basket/">View cart</a>
  <form action="/search/"><input type="search" name="q" placeholder="Search"><button>Search</button></form></header>"""


def listing() -> str:
    tiles = "".join(
        TILE.format(slug=slug, title=title, stars=stars, price=price, stock=stock, buy=buy)
        for slug, title, stars, price, stock, buy in (
            ("trail-shoes_1", "Trail Shoes", "Four", "$79.99", "In stock", BUY),
            (
                "canvas-backpack_6",
                "Canvas Backpack",
                "Five",
                "$64.00",
                "Unavailable",
                "<span class='btn disabled'>Add to basket</span>",
            ),
            ("wool-socks_3", "Wool Socks", "", "$18.50", "In stock", BUY),
        )
    )
    return f"<html><body>{HEADER}<h1>All products</h1><section><div><ol>{tiles}</ol></div></section></body></html>"


def product_page(stock: str, buy: str, extra: str = "") -> str:
    return (
        f"<html><head><title>Canvas Backpack | Outfitters</title></head><body>{HEADER}"
        "<nav><a href='/'>Home</a></nav><article class='product_page'><div class='col product_main'>"
        f"<h1>Canvas Backpack</h1><p class='price_color'>$64.00</p><p class='availability'>{stock}</p>"
        "<p class='star-rating Five'></p><a href='#reviews'>312 customer reviews</a>"
        f"{buy}</div><h2>Product Description</h2><p>Waxed canvas, laptop sleeve.</p>{extra}</article></body></html>"
    )


def recently_viewed() -> str:
    tiles = "".join(
        TILE.format(slug=s, title=t, stars="Four", price=p, stock="In stock", buy="")
        for s, t, p in (("trail-shoes_1", "Trail Shoes", "$79.99"), ("wool-socks_3", "Wool Socks", "$18.50"))
    )
    return f"<div><h2>Products you recently viewed</h2><ul>{tiles}</ul></div>"


def read(raw: str, url: str):
    page = simplify_html(raw, url)
    return page, parse_page(page.html, url=url)


def test_a_section_of_product_tiles_is_not_named_after_its_first_tile():
    page, _observation = read(listing(), "https://shop.example/catalogue/")
    assert "trail_shoes.title" in page.names and "wool_socks.title" in page.names
    assert not any(name.startswith("trail_shoes.wool_socks") for name in page.names)
    # a product page that also shows a few other products is still named by its own title
    page, _ = read(
        product_page("In stock", BUY, recently_viewed()), "https://shop.example/catalogue/canvas-backpack_6/"
    )
    assert "canvas_backpack.form.add_to_basket" in page.names
    assert "canvas_backpack.trail_shoes.title" in page.names


def test_stars_drawn_from_a_class_word_are_kept_as_text():
    page, observation = read(listing(), "https://shop.example/catalogue/")
    assert "4 out of 5 stars" in page.html and "5 out of 5 stars" in page.html
    assert [p.rating for p in observation.facts.products] == [4.0, 5.0, None]


def test_a_tiles_add_to_cart_in_its_own_form_belongs_to_the_tile_and_a_list_of_tiles_is_a_listing():
    _, observation = read(listing(), "https://shop.example/catalogue/")
    shoes, backpack, _socks = observation.facts.products
    assert (shoes.title, shoes.price, shoes.availability) == ("Trail Shoes", 79.99, "in_stock")
    assert shoes.buy_names == ("trail_shoes.form.add_to_basket",)
    assert (backpack.availability, backpack.buy_names) == ("unavailable", ())
    assert observation.facts.focus is None and observation.page_type == "search_results"
    assert observation.by_name["trail_shoes.form.add_to_basket"].click_type == "purchase"


def test_a_sold_out_product_page_without_a_buy_button_is_still_a_product_page():
    _, observation = read(
        product_page("Unavailable", "<form><input type='email' placeholder='Email'><button>Notify me</button></form>"),
        "https://shop.example/catalogue/canvas-backpack_6/",
    )
    assert observation.page_type == "product"
    backpack = observation.facts.focus_product
    assert (backpack.title, backpack.price, backpack.availability, backpack.rating) == (
        "Canvas Backpack",
        64.0,
        "unavailable",
        5.0,
    )
    assert not observation.facts.can_buy
    _, on_sale = read(product_page("In stock (9 available)", BUY), "https://shop.example/catalogue/canvas-backpack_6/")
    assert on_sale.page_type == "product" and on_sale.facts.can_buy
    assert on_sale.facts.focus_product.buy_names == ("canvas_backpack.form.add_to_basket",)


def test_a_heading_and_a_price_further_on_do_not_make_a_product_page():
    raw = (
        "<html><body><main><h1>Our story</h1><p>Founded in 2009.</p><p>Earn $25 back on your first order.</p>"
        "</main></body></html>"
    )
    _, observation = read(raw, "https://shop.example/about/")
    assert observation.page_type == "other" and observation.facts.focus is None


def test_a_product_drop_down_in_the_add_to_cart_form_offers_its_choices():
    form = (
        "<form><label for='colour'>Colour</label><select id='colour' name='colour'><option value=''>------</option>"
        "<option value='1'>Black</option><option value='2'>Sage</option></select>"
        "<label for='qty'>Quantity</label><select id='qty' "
        "name='quantity'><option>1</option><option>2</option></select>"
        "<button type='submit'>Add to basket</button></form>"
    )
    _page, observation = read(
        product_page(
            "In stock", form, "<form><select name='sort'><option>Newest</option><option>Price</option></select></form>"
        ),
        "https://shop.example/catalogue/canvas-backpack_6/",
    )
    choices = [c for c in observation.candidates if ".drop_down_list." in c.name]
    assert [(c.name, c.text, c.click_type) for c in choices] == [
        ("canvas_backpack.form.colour.drop_down_list.black", "Black", "product_option"),
        ("canvas_backpack.form.colour.drop_down_list.sage", "Sage", "product_option"),
    ]
    assert observation.by_name["canvas_backpack.form.quantity"].tag == "select"  # the quantity stays a drop-down
    assert any(c.tag == "select" and "sort" in c.name for c in observation.candidates)  # not in a buy form
    # each choice points back to its own <option>, so the browser can pick it
    sourced = simplify_html(
        product_page("In stock", form).replace("<option value='1'>", "<option value='1' data-n='b'>"),
        source_attribute="data-n",
    )
    assert sourced.sources["canvas_backpack.form.colour.drop_down_list.black"] == "b"


def test_basket_words_and_a_basket_url_read_as_the_cart():
    raw = (
        "<html><body><h1>Basket</h1><form><div class='basket-items'><h3><a href='/catalogue/trail-shoes_1/'>"
        "Trail Shoes</a></h3><p>$79.99</p></div></form><a href='/checkout/'>Proceed to checkout</a></body></html>"
    )
    _, observation = read(raw, "https://shop.example/basket/")
    assert observation.page_type == "cart"
    assert observation.by_name["page.proceed_to_checkout"].click_type == "purchase"


@pytest.mark.parametrize(
    "name, expected",
    [
        ("trail_shoes.form.add_to_basket", "purchase"),
        ("main.add_to_bag", "purchase"),
        ("page.view_cart", "cart_side_bar"),  # the "added to your cart" message: Amazon's cart side sheet
        ("page.view_basket", "cart_side_bar"),
        ("header.view_cart", "nav_bar"),  # the header's cart: Amazon's nav_bar.cart_button
        ("header.nav.basket", "nav_bar"),
        ("header.nav.form.search_2", "search"),  # a second "Search" (the box took "search")
        ("header.oscar_outfitters", "other"),
        ("x.write_a_review", "other"),  # writing a review is not reading them
        ("x.leave_a_product_review.form.save_review", "other"),
        ("x.customer_reviews.great_grip.permalink", "review"),
        ("x.form.colour.drop_down_list.black", "product_option"),
    ],
)
def test_click_types_of_any_shops_names(name, expected):
    assert infer_click_type(name) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Unavailable", "unavailable"),
        ("$64.00 Unavailable Add to basket", "unavailable"),
        ("Not available", "unavailable"),
        ("Some sizes unavailable", None),
        ("Delivery unavailable", None),
        ("Unavailable in your area", None),
        ("$22.00 Available", "in_stock"),
        ("In stock (25 available)", "in_stock"),
        ("Available soon", None),
        ("Available in 3 colours", None),
        ("Momentálne nie je možné produkt kúpiť", "unavailable"),
        ("Nicht mehr bestellbar", "unavailable"),
        ("Verfügbarkeit in der Filiale prüfen", None),  # the nouns for availability say nothing of the stock
        ("Verifica disponibilità", None),
        ("Strážiť cenu a dostupnosť", None),
        ("Sofort verfügbar", "in_stock"),
        ("Disponibile", "in_stock"),
    ],
)
def test_stock_lines_of_any_shop(text, expected):
    assert availability(text)[0] == expected
