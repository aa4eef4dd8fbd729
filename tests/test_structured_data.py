"""The product a page declares for machines (agent/page/structured_data.py): schema.org Product / Offer /
AggregateRating in JSON-LD, microdata and RDFa, and OpenGraph tags; read first, with the visible page filling in
what they leave out, and every fact saying where it came from (agent/page/own_product.py). The markup is written
by hand in the shapes the shops of the development pages use; no shop's names."""

from __future__ import annotations

import json

from agent.page.read_page import observe_page
from agent.page.structured_data import read_declared


def page(head: str = "", body: str = "<h1>Kettle</h1><p>Boils water.</p>") -> str:
    return f"<html><head><title>Kettle | Shop</title>{head}</head><body><main>{body}</main></body></html>"


def json_ld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


KETTLE = {
    "@context": "https://schema.org",
    "@type": "Product",
    "name": "Steel Kettle 1.7 l",
    "brand": {"name": "Brew"},
    "offers": {
        "@type": "Offer",
        "price": "39.90",
        "priceCurrency": "EUR",
        "availability": "https://schema.org/InStock",
    },
    "aggregateRating": {"ratingValue": "9", "bestRating": "10", "reviewCount": "128"},
}


def test_a_json_ld_product_gives_price_currency_stock_and_rating_with_their_source():
    product = observe_page(
        page(json_ld(KETTLE)), url="https://shop.example/kettle", simplified=False
    ).facts.focus_product
    assert (product.price, product.currency, product.availability) == (39.9, "EUR", "in_stock")
    assert (product.rating, product.review_count) == (4.5, 128)  # 9 of 10 is 4.5 of 5
    assert product.source_of("price") == "structured_data" and product.source_of("availability") == "structured_data"


def test_the_product_in_a_graph_beside_related_products_and_breadcrumbs():
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "BreadcrumbList", "itemListElement": [{"@type": "ListItem", "position": 1, "name": "Home"}]},
            {
                **KETTLE,
                "isRelatedTo": [{"@type": "Product", "name": "Cup", "offers": {"price": "5", "priceCurrency": "EUR"}}],
            },
        ],
    }
    declared = read_declared(page(json_ld(graph)), "https://shop.example/kettle")
    assert (declared.page_type, declared.product.name, declared.product.price) == (
        "product",
        "Steel Kettle 1.7 l",
        39.9,
    )


def test_sizes_sold_out_but_one_the_product_is_in_stock():
    offers = [
        {"@type": "Offer", "price": "38.15", "priceCurrency": "EUR", "availability": "OutOfStock"},
        {"@type": "Offer", "price": "38.15", "priceCurrency": "EUR", "availability": "InStock"},
    ]
    declared = read_declared(page(json_ld({**KETTLE, "offers": offers})))
    assert declared.product.availability == "in_stock"
    sold_out = read_declared(page(json_ld({**KETTLE, "offers": offers[:1]})))
    assert sold_out.product.availability == "unavailable"


def test_an_aggregate_offer_gives_its_low_price():
    offer = {"@type": "AggregateOffer", "lowPrice": "1299", "highPrice": "1599", "priceCurrency": "PLN"}
    product = read_declared(page(json_ld({**KETTLE, "offers": offer}))).product
    assert (product.price, product.currency) == (1299.0, "PLN")


def test_microdata_with_an_offer_inside_an_offer():
    body = (
        '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Teddy Bear</h1>'
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><div itemprop="offers" itemscope '
        'itemtype="https://schema.org/Offer"><span itemprop="price" content="12.99">GBP 12,99</span>'
        '<meta itemprop="priceCurrency" content="GBP"><link itemprop="availability" '
        'href="https://schema.org/InStock"></div></div></div>'
    )
    product = observe_page(page(body=body), url="https://shop.example/itm/1", simplified=False).facts.focus_product
    assert (product.price, product.currency, product.availability) == (12.99, "GBP", "in_stock")
    assert product.source_of("price") == "structured_data"


def test_opengraph_prices_in_any_currency():
    head = (
        '<meta property="og:type" content="product"><meta property="product:price:amount" content="26.00">'
        '<meta property="product:price:currency" content="AED">'
    )
    product = observe_page(page(head), url="https://shop.example/kettle", simplified=False).facts.focus_product
    assert (product.price, product.currency, product.source_of("price")) == (26.0, "AED", "meta")


def test_a_declared_list_of_products_is_a_listing_not_a_product_page():
    items = [
        {
            "@type": "ListItem",
            "position": i,
            "item": {
                "@type": "Product",
                "name": f"Kettle {i}",
                "offers": {"price": str(20 + i), "priceCurrency": "GBP"},
            },
        }
        for i in range(1, 5)
    ]
    html = page(
        json_ld({"@context": "https://schema.org", "@type": "ItemList", "itemListElement": items}),
        body="<h1>Kettles</h1><p>Four kettles.</p>",
    )
    assert read_declared(html).page_type == "listing"
    observation = observe_page(html, url="https://shop.example/kettles", simplified=False)
    assert observation.page_type == "search_results" and observation.facts.focus is None
    read = [(p.title, p.price, p.currency, p.source_of("price")) for p in observation.facts.products]
    assert read == [(f"Kettle {i}", 20.0 + i, "GBP", "structured_data") for i in range(1, 5)]


def microdata_tile(name: str, price: str, shown: str) -> str:
    """A tile of a shop that lists partner shops' offers: its title in a div, its price in Danish kroner, and a buy
    button whose click the site's script binds (no link, no button element)."""
    return (
        f'<div itemscope itemtype="http://schema.org/Product"><img alt="{name}" src="x.jpg">'
        f'<div class="title" itemprop="name">{name}</div><div itemprop="offers" itemscope '
        f'itemtype="http://schema.org/Offer"><meta itemprop="priceCurrency" content="DKK">'
        f'<span itemprop="price" style="display:none">{price}</span><span>DKK {shown}</span></div>'
        f'<span class="basket-button">Gem</span><span class="to-shop" data-go="1">Køb</span></div>'
    )


def test_a_list_the_page_declares_in_microdata_and_shows_without_links_is_read_from_its_declarations():
    tiles = "".join(
        microdata_tile(name, price, shown)
        for name, price, shown in (
            ("Sejlersko Tbs Globek", "1084,00", "1.084,00"),
            ("Sejlersko Sebago Docksides", "1091,00", "1.091,00"),
            ("Sejlersko Fluchos Poseidon", "717,00", "717,00"),
        )
    )
    html = page(body=f"<h1>Sejlersko</h1><div class='list'>{tiles}</div>")
    observation = observe_page(html, url="https://shop.example/sko/sejlersko/", simplified=False)
    assert observation.page_type == "search_results" and observation.facts.focus is None
    assert [(p.title, p.price, p.currency) for p in observation.facts.products] == [
        ("Sejlersko Tbs Globek", 1084.0, "DKK"),
        ("Sejlersko Sebago Docksides", 1091.0, "DKK"),
        ("Sejlersko Fluchos Poseidon", 717.0, "DKK"),
    ]


def test_a_product_page_that_declares_the_products_it_recommends_keeps_its_own_product():
    tiles = "".join(
        microdata_tile(name, price, price)
        for name, price in (("Tea towel", "49,00"), ("Egg timer", "79,00"), ("Oven glove", "99,00"))
    )
    body = (
        "<h1>Steel Kettle 1.7 l</h1><p>DKK 299,00</p><button>Læg i kurv</button><p>In stock</p>"
        f"<h2>Others also bought</h2>{tiles}"
    )
    observation = observe_page(page(body=body), url="https://shop.example/steel-kettle", simplified=False)
    facts = observation.facts
    assert observation.page_type == "product" and facts.focus is not None
    assert (facts.products[facts.focus].title, facts.products[facts.focus].price) == ("Steel Kettle 1.7 l", 299.0)


def test_a_shown_price_that_disagrees_with_the_declared_one_is_noted():
    body = '<h1>Steel Kettle 1.7 l</h1><p class="price">44,90 €</p><button>In den Warenkorb</button>'
    facts = observe_page(page(json_ld(KETTLE), body), url="https://shop.example/kettle", simplified=False).facts
    assert facts.focus_product.price == 39.9
    assert "price: json-ld says 39.90 EUR, the page shows 44.90 EUR" in facts.notes


def test_without_declarations_the_visible_price_under_the_title_in_the_pages_locale():
    body = (
        '<h1>Massivholz-Regal</h1><a href="#r">4,5 (452)</a><p>99,95 €</p><p>inkl. MwSt.</p>'
        "<p>Sofort lieferbar</p><button>In den Warenkorb</button>"
    )
    product = observe_page(page(body=body), url="https://shop.example/regal-p4001.html", simplified=False)
    own = product.facts.focus_product
    assert (product.page_type, own.price, own.currency, own.availability) == ("product", 99.95, "EUR", "in_stock")
    assert own.source_of("price") == "visible" and own.buy_names


def test_the_same_page_under_another_host_reads_the_same():
    html = page(json_ld(KETTLE), "<h1>Steel Kettle 1.7 l</h1><p>39,90 €</p><button>Ajouter au panier</button>")
    one = observe_page(html, url="https://www.kettles.example/p/steel-kettle", simplified=False).facts
    other = observe_page(html, url="https://another.test/p/steel-kettle", simplified=False).facts
    assert one == other and one.focus_product.price == 39.9


def test_a_page_that_declares_nothing_declares_nothing():
    declared = read_declared(page())
    assert declared.product is None and declared.page_type is None
