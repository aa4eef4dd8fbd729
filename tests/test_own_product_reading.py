"""The product a product page is about, read from what any shop shows (agent/page/own_product.py): its title is
the heading that names it, not a cart panel's heading that comes first; its price stands beside its own buy button
when a long description parts it from the title. Generic markup, no shop's page."""

from __future__ import annotations

from agent.page.read_page import observe_page

DESCRIPTION = "<p>" + "A calm, precise desktop computer with a large screen and quiet fans. " * 20 + "</p>"
URL = "https://shop.example/p/desktop-27"


def read(html: str):
    return observe_page(html, url=URL, simplified=False)


def test_the_price_beside_the_buy_button_past_a_long_description():
    html = (
        "<html><body><main><h1>Desktop 27 inch, 32GB</h1><p>Ships in 20 working days</p>"
        f"{DESCRIPTION}<p>excl. VAT 4386,00 €</p><p>incl. VAT 5263,20 €</p>"
        "<form><input type='number' value='1'><button>Do košíka</button></form></main></body></html>"
    )
    product = read(html).facts.focus_product
    assert product is not None and product.title == "Desktop 27 inch, 32GB"
    assert product.price == 4386.0 and product.currency == "EUR" and product.source_of("price") == "visible"


def test_no_price_is_taken_from_far_before_the_buy_button():
    html = (
        "<html><body><main><h1>Desktop 27 inch, 32GB</h1><p>Was 5263,20 € last year</p>"
        f"{DESCRIPTION}<form><button>Do košíka</button></form></main></body></html>"
    )
    assert read(html).facts.focus_product.price is None


def test_the_heading_that_names_the_declared_product_is_its_title():
    declared = (
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", '
        '"name": "Sports bra, seamless microfibre", "offers": {"@type": "Offer", "price": "20.00", '
        '"priceCurrency": "EUR", "availability": "https://schema.org/InStock"}}</script>'
    )
    html = (
        f"<html><head>{declared}</head><body><aside><h1>Your basket is empty :(</h1></aside>"
        "<main><h1>Sports bra - seamless microfibre - black</h1><p>20,00 €</p>"
        "<button>Ajouter au panier</button></main></body></html>"
    )
    product = read(html).facts.focus_product
    assert product.title == "Sports bra - seamless microfibre - black" and product.price == 20.0


def _declared_in_stock(name: str) -> str:
    return (
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", '
        f'"name": "{name}", "offers": {{"@type": "Offer", "price": "54.50", "priceCurrency": "EUR", '
        '"availability": "https://schema.org/InStock"}}</script>'
    )


def test_the_pages_own_stock_line_saying_it_cannot_be_bought_outweighs_data_that_says_in_stock():
    html = (
        f"<html><head>{_declared_in_stock('Weather station 570')}</head><body><main><h1>Weather station 570</h1>"
        "<a href='/watch'>Watch the price and availability</a>"  # "dostupnosť": a link, not a stock line
        "<div class='product-top__availability-box'><strong>Momentálne nie je možné produkt kúpiť</strong></div>"
        "<p>Cena: 54,50 €</p><form><button>Do košíka</button></form></main></body></html>"
    )
    product = read(html).facts.focus_product
    assert product.availability == "unavailable" and product.source_of("availability") == "visible"
    assert any("says in_stock, the page shows unavailable" in note for note in product.disagreements)
    assert read(html).facts.can_buy is False


def test_words_for_availability_anywhere_on_the_page_do_not_outweigh_the_declared_stock():
    """Only the line the shop marks as its stock line is trusted over the data: a sentence elsewhere is not."""
    html = (
        f"<html><head>{_declared_in_stock('Weather station 570')}</head><body><main><h1>Weather station 570</h1>"
        "<p>Cena: 54,50 €</p><form><button>Do košíka</button></form>"
        "<p>Accessories for it: the rain gauge is out of stock until May.</p></main></body></html>"
    )
    product = read(html).facts.focus_product
    assert product.availability == "in_stock" and product.source_of("availability") == "structured_data"


def test_a_classified_ad_is_taken_by_replying_to_its_seller_not_by_the_sites_contact_link():
    html = (
        "<html><body><header><a href='/hilfe#kontakt'>Kontakt</a></header>"
        "<main><h1>Fernseher Samsung 32 Zoll</h1><p>€ 120,-</p>"
        "<aside><button class='contact-button'>Kontaktieren</button></aside></main>"
        "<footer><a href='/kontakt'>Kontakt</a></footer></body></html>"
    )
    observed = read(html)
    product = observed.facts.focus_product
    assert product is not None and product.price == 120.0
    assert len(product.buy_names) == 1 and product.buy_names[0].endswith("kontaktieren")
    assert observed.facts.can_buy
    ad_without_reply = html.replace("<button class='contact-button'>Kontaktieren</button>", "")
    assert not read(ad_without_reply).facts.can_buy


def test_a_review_count_of_zero_in_the_reviews_label_is_a_count():
    """An OPeRA-simplified page names its review count `reviews`; "0 ratings" there is a count, not nothing."""
    html = (
        "<html><body><div name='product_detail'><h1>Desk lamp, brass</h1><span>$34.99</span>"
        "<a name='reviews' aria-label='0 ratings'>Be the first to review</a>"
        "<button name='buybox.purchase_form.add_to_cart'>Add to Cart</button></div></body></html>"
    )
    product = observe_page(html, url="https://www.amazon.com/dp/B000TEST01", simplified=True).facts.focus_product
    assert product is not None and product.review_count == 0
