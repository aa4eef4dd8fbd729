"""How shops state what the product a page is about sells at and whether it can be bought, in markup cut from real
product pages (the development half of Zyte's product-extraction benchmark, scrapinghub/product-extraction-benchmark,
MIT, Copyright (c) 2021 Zyte; each fixture names the page it was cut from, trimmed to the elements that matter,
with the shop's own attributes kept): a ticketed event that declares its offer, a buy button drawn as a picture, a
declared price that the page shows struck through before its discount, Amazon's stock line outside its buy box, a
product page beside the products it recommends, order buttons in more of the data's languages, and an auction that
declares where its bidding started."""

from __future__ import annotations

import pytest

from agent.page.click_types import infer_click_type
from agent.page.fact_texts import list_price, price_to_pay
from agent.page.money import find_money
from agent.page.read_page import observe_page

# From https://www.puntoticket.com/evento/lina-de-lima-streaming: a ticket shop declares a schema.org Event with an
# AggregateOffer (in Chilean pesos) and no Product.
EVENT = """<html><head><title>Entradas Lina de Lima Streaming Punto Play - Santiago</title>
<script type="application/ld+json">[{"@context": "http://schema.org", "@type": "Event",
 "name": "Lina de Lima en Streaming Punto Play - Santiago", "startDate": "2020-12-31T23:59:00",
 "url": "https://www.puntoticket.com/evento/lina-de-lima-streaming?utm_medium=organic&utm_source=microformat",
 "offers": {"@type": "AggregateOffer", "category": "primary", "lowPrice": "3340", "highPrice": "3340",
 "priceCurrency": "CLP", "url": "https://www.puntoticket.com/evento/lina-de-lima-streaming"},
 "location": {"@type": "Place", "name": "Streaming Punto Play"}}]</script></head>
<body><h1>Lina de Lima</h1><h2>Streaming Punto Play - Santiago</h2>
<div id="detalle-entradas" class="detalle_entradas"><p class="text1">Lina de Lima</p>
<p id="calendar-prices"><strong>Precios:</strong>  $3.340<br></p>
<p class="text2">Nota: Precios incluyen cargo por servicio</p>
<a id="buy-btn" href="https://compra.puntoticket.com/Compra/SeleccionAsientos?EventoID=MAK007&amp;CalID=1"
 class="btn">Comprar Entrada</a></div></body></html>"""
EVENT_URL = "https://www.puntoticket.com/evento/lina-de-lima-streaming"

# From https://www.boscovs.com/shop/prod/sealy-soybean-nature-couture-crib-mattress/418295.htm: the price in
# microdata, the add-to-cart button a picture whose click the shop's script binds.
PICTURE_BUTTON = """<html><body><h1>Sealy Soybean Nature Couture Crib Mattress</h1>
<div class="price-display featured-pricing money product-info" itemtype="http://schema.org/Offer" itemscope=""
 itemprop="offers"><meta itemprop="priceCurrency" content="USD">
<span class="font-weight-bold h4 d-lg-block price red"><span class="label">Price:</span>
<span id="prodTotal"><span class="price">$<span itemprop="price">169.99</span></span></span></span></div>
<div class="pb-3" id="itemNumber">Item # 418295</div>
<div class="pb-3"><div class="quantityLabel">Qty</div>
<input type="number" class="form-control input-number quantityInput" min="1" id="quantity" name="quantity" value="1">
</div>
<div class="pt-3 pb-3 text-primary"><img class="cursor-pointer" id="addToCartButton" title="Add to Cart"
 alt="Add to Cart" src="https://sb.monetate.net/img/1/162/1963946.png"></div></body></html>"""
PICTURE_URL = "https://www.boscovs.com/shop/prod/sealy-soybean-nature-couture-crib-mattress/418295.htm"

# From https://www.elkor.lv/lat/monnalisa-rosso-175004-5066.html: the microdata offer states the price before the
# discount; the page shows it, the discount, and the price to pay.
STRUCK_DECLARED = """<html><body><h1>Soma MONNALISA Rosso</h1><p>Produkta kods 520501927</p>
<span class="correct-warning">Produkts var atšķirties no tā attēla, attēlā var būt daļas, kas nav iekļautas
 iepakojumā.</span><div class="add-to-cart data"><div itemprop="offers" itemscope="itemscope" itemtype="http://schema.org/Offer">
<meta itemprop="priceCurrency" content="EUR"> <meta itemprop="price" content="{declared}">
<meta itemprop="availability" content="InStock">
<div class="price"><div class="price-block px-custom align-left"><div class="price-block-top mb5"><div>
<span class="original-price cl-black weight-400 mr8 fs16 lh22 current-price">EUR219.99</span>
<span class="discount-label fs16 lh22 weight-500 inline-block">-50%</span></div>
<div class="product-price weight-500"><span class="price-svg current-price">EUR110.00</span></div></div></div></div>
<div class="available-in-store">Pieejamība: <span class="weight-700">1 gab </span></div></div>
<button class="add-to-cart-btn">Ielikt grozā</button></div></body></html>"""
STRUCK_URL = "https://www.elkor.lv/lat/monnalisa-rosso-175004-5066.html"


def test_an_event_that_declares_its_offer_is_a_product_page_priced_in_its_currency():
    observation = observe_page(EVENT, url=EVENT_URL, simplified=False)
    product = observation.facts.focus_product
    assert observation.page_type == "product"
    assert product is not None and product.price == 3340.0 and product.currency == "CLP"
    assert product.source_of("price") == "structured_data"


def test_an_event_without_an_offer_is_no_product():
    page = EVENT.replace('"offers": {', '"organizer": {')
    observation = observe_page(page, url=EVENT_URL, simplified=False)
    assert observation.page_type != "product"


def test_an_add_to_cart_button_drawn_as_a_picture_buys_the_product():
    observation = observe_page(PICTURE_BUTTON, url=PICTURE_URL, simplified=False)
    product = observation.facts.focus_product
    assert product is not None and product.price == 169.99 and product.currency == "USD"
    assert product.buy_names and observation.by_name[product.buy_names[0]].click_type == "purchase"
    assert observation.facts.can_buy


def test_a_picture_that_says_nothing_about_buying_is_no_control():
    page = PICTURE_BUTTON.replace('title="Add to Cart"\n alt="Add to Cart"', 'title="Mattress" alt="Mattress"')
    observation = observe_page(page, url=PICTURE_URL, simplified=False)
    assert not observation.facts.can_buy


def test_a_declared_price_shown_struck_before_its_discount_is_the_list_price():
    observation = observe_page(STRUCK_DECLARED.format(declared="219.99"), url=STRUCK_URL, simplified=False)
    product = observation.facts.focus_product
    assert product is not None
    assert (product.price, product.list_price, product.currency) == (110.0, 219.99, "EUR")
    assert product.source_of("price") == "visible" and product.availability == "in_stock"
    assert any("219.99" in note for note in observation.facts.notes)


def test_a_declared_price_the_page_shows_to_pay_stays_the_price():
    observation = observe_page(STRUCK_DECLARED.format(declared="110.00"), url=STRUCK_URL, simplified=False)
    product = observation.facts.focus_product
    assert product is not None and product.price == 110.0 and product.source_of("price") == "structured_data"


def test_an_old_price_is_told_by_its_discount_only_when_the_sum_holds():
    assert price_to_pay("EUR219.99 -50% EUR110.00").amount == 110.0
    assert list_price("EUR219.99 -50% EUR110.00").amount == 219.99
    assert price_to_pay("49,90 € \u2212\u200920 % 39,92 €").amount == 39.92
    assert price_to_pay("$20.00 -10% $15.00").amount == 20.0  # 10% off 20 is not 15: two prices, not a discount
    assert list_price("$20.00 -10% $15.00") is None


# From https://www.amazon.it/dp/B0756B4GVG: sold only by other sellers, the stock line stands in the centre column
# under the title, not in the buy box on the right.
AMAZON_OTHER_SELLERS = """<html><body><div id="dp"><div id="centerCol">
<div id="titleSection" class="a-section a-spacing-none"><h1 id="title" class="a-size-large a-spacing-none">
<span id="productTitle" class="a-size-large product-title-word-break">
Pink Dog Hair Dye Hair Coloring Professional Colors for Stylish Pet 50ml</span></h1></div>
<div id="availability_feature_div" class="celwidget" data-feature-name="availability">
<div id="availability" class="a-section a-spacing-base"><span class="a-size-medium a-color-success">
<span class="a-declarative" data-action="show-all-offers-display">
Disponibile presso <a href="/gp/offer-listing/B0756B4GVG/ref=dp_olp_afts?ie=UTF8&amp;condition=all">questi
venditori</a>.</span></span></div></div></div>
<div id="rightCol" class="rightCol rightCol-bbcxoverride"><div class="a-button-stack">
<span id="buybox-see-all-buying-choices" class="a-button a-spacing-base a-button-primary"><span
 class="a-button-inner"><a id="buybox-see-all-buying-choices-announce"
 href="/gp/offer-listing/B0756B4GVG/ref=dp_olp_unknown_mbc" title="Visualizza tutte le opzioni di acquisto"
 class="a-button-text" role="button">Visualizza tutte le opzioni di acquisto</a></span></span></div></div>
</div></body></html>"""

# From https://www.vsezaoci.si/sportna-ocala/plavalna-ocala/potapljaska-maska-z-dioptrijo-za-zacetnike: no address
# shape and no declarations; the product's heading, stock, price, options (one with a surcharge) and "Naroči"
# (order) button, then three recommended products, each a title link and a price.
RECOMMENDED = "".join(
    f"""<div class="col"><div class="product"><a href="/{slug}"><img alt="{title}" src="/{slug}.jpg"></a>
<a href="/{slug}" class="title">{title}</a><p class="price">{price}</p>
<a href="#" class="compare">Med priljubljene ali v primerjavo</a></div></div>"""
    for slug, title, price in (
        ("m-212", "Potapljaška maska z dioptrijo M-212", "150.00€"),
        ("deluxe", "Dioptrijska plavalna očala DELUXE", "50.00€"),
        ("po-meri", "Plavalna očala z dioptrijo po meri", "55.00€"),
    )
)
BESIDE_RECOMMENDED = f"""<html><body><header><nav><a href="/bralna-ocala">Bralna očala</a>
<a href="/plavalna-ocala">Plavalna očala</a></nav></header>
<div class="product-info"><h1>Potapljaška maska z dioptrijo za začetnike</h1>
<p>Proizvajalec: <a href="/b-s">B&amp;S</a></p><p>Šifra: 9470</p><p>Razpoložljivost: Dobavljivo</p>
<p>Rok dobave: 1-10 delovnih dni</p><p class="price">100.00€</p><p>Brez DDV: 81.97€</p>
<a href="#" class="share">Share to Natisni</a>
<form><p><input type="radio" name="barva" id="b1"> črna <input type="radio" name="barva" id="b2"> modra</p>
<p><input type="radio" name="dioptrija" id="d1"> Brez dioptrije (-40.00€)
<input type="radio" name="dioptrija" id="d2"> Z dioptrijo</p>
<p>Količina <input type="text" name="kolicina" value="1"> <button type="submit">Naroči</button></p></form></div>
<p>Podobni izdelki</p><div class="row">{RECOMMENDED}</div></body></html>"""
BESIDE_URL = "https://www.vsezaoci.si/sportna-ocala/plavalna-ocala/potapljaska-maska-z-dioptrijo-za-zacetnike"


def test_amazons_stock_line_outside_the_buy_box_is_still_the_products():
    observation = observe_page(AMAZON_OTHER_SELLERS, url="https://www.amazon.it/dp/B0756B4GVG", simplified=False)
    product = observation.facts.focus_product
    assert observation.page_type == "product"
    assert product is not None and product.availability == "in_stock" and product.price is None


def test_a_product_page_beside_the_products_it_recommends_is_a_product_page():
    observation = observe_page(BESIDE_RECOMMENDED, url=BESIDE_URL, simplified=False)
    product = observation.facts.focus_product
    assert observation.page_type == "product"
    assert product is not None and product.title == "Potapljaška maska z dioptrijo za začetnike"
    assert (product.price, product.currency, product.availability) == (100.0, "EUR", "in_stock")
    assert [observation.by_name[name].text for name in product.buy_names] == ["Naroči"]
    assert sorted(p.price for p in observation.facts.alternatives()) == [50.0, 55.0, 150.0]


def test_the_same_products_under_a_category_heading_are_a_listing():
    category = f"<html><body><h1>Plavalna očala</h1><div class='row'>{RECOMMENDED}</div></body></html>"
    observation = observe_page(category, url=BESIDE_URL, simplified=False)
    assert observation.page_type == "search_results" and observation.facts.focus_product is None


@pytest.mark.parametrize(
    "name",
    [
        "product.naroci",  # Slovene "Naroči" (order)
        "product.form.naruci",  # Croatian "Naruči"
        "product.dodaj_u_kosaricu",  # Croatian "Dodaj u košaricu"
        "soma_monnalisa_rosso.ielikt_groza",  # Latvian "Ielikt grozā" (elkor.lv)
        "product.pievienot_grozam",  # Latvian "Pievienot grozam"
        "product.i_krepseli",  # Lithuanian "Į krepšelį"
        "product.lisa_ostukorvi",  # Estonian "Lisa ostukorvi"
    ],
)
def test_order_and_add_to_cart_in_more_of_the_datas_languages_buy(name):
    assert infer_click_type(name, "button", "") == "purchase"


def test_an_order_history_link_does_not_buy():
    assert infer_click_type("footer.zgodovina_narocil", "a", "Zgodovina naročil") != "purchase"


def test_a_model_number_before_a_price_is_no_part_of_it():
    # "Potapljaška maska z dioptrijo M-212 150.00€", a recommended product's title and price on vsezaoci.si
    assert [m.amount for m in find_money("Potapljaška maska z dioptrijo M-212 150.00€")] == [150.0]
    assert [m.amount for m in find_money("Brez dioptrije (-40.00€)")] == [40.0]
    assert [m.amount for m in find_money("1 299,00 ₽")] == [1299.0]


# From https://www.liveauctioneers.com/item/93133869_alexander-girard-for-herman-miller-pillows-pair: the Offer
# declares the starting price; the page shows the current bid and the bid count in two adjacent spans.
AUCTION = """<html><head><title>Alexander Girard for Herman Miller pillows, pair</title>
<script type="application/ld+json">{"@context":"http://schema.org","@type":"Product","brand":"Alexander Girard",
"name":"Alexander Girard for Herman Miller pillows, pair","offers":{"@type":"Offer",
"availability":"http://schema.org/InStock","price":150,"priceCurrency":"USD"}}</script></head><body>
<div class="buyers-premium"><h6>Buyer's Premium</h6><ul><li>30% up to<!-- --> <!-- -->$100,000</li></ul></div>
<h1 class="title___3hsaL"><span>Alexander Girard for Herman Miller pillows, pair</span></h1>
<div class="estimateRow___emHH6">Estimate <!-- -->$300<!-- --> - <!-- -->$500</div>
<div class="status___1CZcC"><span class="price___2QlEj">$200</span><span class="countContainer___3rqiW">
<span class="count___3RuWU">2<!-- --> <!-- -->bids</span></span></div>
<span class="displayOnPrint___jfVEm">Starting Price<!-- --> <!-- -->$150</span>
<button>Place Bid</button>
<h2>Similar items</h2><div class="card"><a href="/item/1">Eero Saarinen for Knoll Int</a><span>4 days Left</span>
<span>$550</span><div>2 bids</div></div></body></html>"""


def test_an_auction_sells_at_its_current_bid_not_the_starting_price_it_declares():
    facts = observe_page(AUCTION, url="https://auctions.example/item/93133869", simplified=False).facts
    own = facts.products[facts.focus]
    assert (own.price, own.currency, own.source_of("price")) == (200.0, "USD", "visible")
    assert any("bids have reached 200.00" in note for note in own.disagreements)


def test_a_declared_price_that_bids_have_not_passed_stays_the_price():
    page = AUCTION.replace("$200</span>", "$150</span>").replace("2<!-- --> <!-- -->bids", "0<!-- --> <!-- -->bids")
    own = observe_page(page, url="https://auctions.example/item/93133869", simplified=False).facts
    assert (own.products[own.focus].price, own.products[own.focus].source_of("price")) == (150.0, "structured_data")
