"""Listings whose cards the page does not set apart (agent/page/listing_products.py): title links followed by their
prices, cards that start with their buy button, was-prices and savings beside the price, a bare "$" on a shop of a
dollar country other than the US. The markup is written by hand in the shapes of the corpus's listing pages."""

from __future__ import annotations

from agent.page.read_page import observe_page


def listing(items: str, head: str = "") -> str:
    return (
        f"<html><head><title>Shorts | Shop</title>{head}</head><body><header><a href='/'>Shop</a>"
        f"<a href='/basket'>Basket</a></header><h1>Shorts</h1><p>Sort by</p>{items}</body></html>"
    )


def test_title_links_followed_by_their_prices_in_pounds():
    items = "".join(
        f'<a href="/p/{i}"><img alt="x"></a><a href="/p/{i}">{title}</a><p>£{price}</p>'
        for i, (title, price) in enumerate(
            (("Stone chinos shorts", "34.95"), ("Navy linen shorts", "29.00"), ("Red checked shorts", "39.50"))
        )
    )
    observation = observe_page(listing(items), url="https://shop.example/mens-shorts", simplified=False)
    read = [(p.title, p.price, p.currency) for p in observation.facts.products]
    assert read == [
        ("Stone chinos shorts", 34.95, "GBP"),
        ("Navy linen shorts", 29.0, "GBP"),
        ("Red checked shorts", 39.5, "GBP"),
    ]
    assert observation.page_type == "search_results" and observation.facts.focus is None


def test_the_price_paid_not_the_was_price_or_the_saving():
    items = "".join(
        f'<a href="/p/{i}">Patio umbrella {colour}</a><p>$224.99 $174.99You save $50.00 (22%)</p>'
        for i, colour in enumerate(("black", "walnut", "stone"))
    )
    prices = [
        p.price for p in observe_page(listing(items), url="https://shop.example/patio", simplified=False).facts.products
    ]
    assert prices == [174.99, 174.99, 174.99]


def test_the_price_labelled_as_the_sale_price_not_the_old_one_before_it():
    # Magento's price box: the old price's label is commented out, the special price's shown (a real Brooklyn Brew
    # Shop card in the corpus); the same in German, and a word between two prices that is no sale label.
    cards = (
        ("Summer Wheat", '<p class="old-price"><span>$40.00</span></p><p>Special Price <span>$32.00</span></p>'),
        ("Sommerweizen", "<p><span>€ 40,00</span></p><p>Sonderpreis: <span>€ 32,00</span></p>"),
        ("Grapefruit Honey Ale", "<p><span>$40.00</span></p><p>wholesale <span>$32.00</span></p>"),
    )
    items = "".join(
        f'<div><a href="/p/{i}">{title}</a>{prices}<a href="/cart/add/{i}">Add to Cart</a></div>'
        for i, (title, prices) in enumerate(cards)
    )
    observation = observe_page(listing(items), url="https://shop.example/kits", simplified=False)
    assert [p.price for p in observation.facts.products] == [32.0, 32.0, 40.0]


def test_cards_that_start_with_their_buy_button_and_a_dollar_of_canada():
    items = "".join(
        f'<div><a href="/p/{i}"></a><div><a href="/cart/add/{i}">Add to Cart +</a><p>{title}</p>'
        f"<p>200 ml</p><p>${was}${now}</p></div></div>"
        for i, (title, was, now) in enumerate(
            (
                ("Nutricap Shampoo", "7.99", "7.19"),
                ("Herbal Conditioner", "15.99", "13.59"),
                ("Sport Shower Gel", "4.99", "4.49"),
            )
        )
    )
    facts = observe_page(listing(items), url="https://www.shop.ca/categories/shampoo", simplified=False).facts
    assert [(p.title, p.price, p.currency) for p in facts.products] == [
        ("Nutricap Shampoo", 7.19, "CAD"),
        ("Herbal Conditioner", 13.59, "CAD"),
        ("Sport Shower Gel", 4.49, "CAD"),
    ]
    assert all(p.buy_names for p in facts.products) and facts.focus is None


def test_an_author_link_in_a_card_is_not_its_title():
    items = "".join(
        f'<a href="/p/{i}">{title}</a><a href="/p/{i}">{title}</a><a href="/a/{i}">{author}</a>'
        f"<p>{price} €</p><p>In stock</p>"
        for i, (title, author, price) in enumerate(
            (("DVD Between the folds", "Green Fuse Films", "19,95"), ("DVD Mise en Plis", "Vincent Floderer", "24,95"))
        )
    )
    products = observe_page(listing(items), url="https://shop.example/dvd", simplified=False).facts.products
    assert [(p.title, p.price, p.currency, p.availability) for p in products] == [
        ("DVD Between the folds", 19.95, "EUR", "in_stock"),
        ("DVD Mise en Plis", 24.95, "EUR", "in_stock"),
    ]


def test_a_product_page_with_a_breadcrumb_and_a_details_table_is_one_product_not_a_list():
    """The breadcrumb's last link is followed by the product's title and price, a review link by the price again in
    a details table: neither is a card, so the page is the product's own."""
    page = (
        "<html><head><title>Merino socks | Shop</title></head><body><header><a href='/'>Shop</a></header>"
        "<ul class='breadcrumb'><li><a href='/'>Home</a></li><li><a href='/c/footwear'>Footwear</a></li>"
        "<li>Merino socks (3 pack)</li></ul><article><h1>Merino socks (3 pack)</h1><p>£18.50</p>"
        "<p>In stock (60 available)</p><a href='/p/3/reviews/add'>Write a review</a>"
        "<form action='/basket/add/3' method='post'><button type='submit'>Add to basket</button></form>"
        "<table><tr><th>Price (incl. tax)</th><td>£18.50</td></tr><tr><th>Availability</th>"
        "<td>In stock (60 available)</td></tr></table></article></body></html>"
    )
    observation = observe_page(page, url="https://shop.example/catalogue/merino-socks_3/", simplified=False)
    assert observation.page_type == "product"
    own = observation.facts.products[observation.facts.focus]
    assert (own.title, own.price, own.currency, own.availability) == ("Merino socks (3 pack)", 18.5, "GBP", "in_stock")


def test_cards_whose_links_and_long_notes_follow_their_price():
    """Juno Records' shape: title link, add to cart, stock and price, then the card's other links (wishlist, the
    title again, an alert, the brand) and a long description before the next card's title; a sort menu with "High to
    low" twice (bestsellers, price) before the first card."""
    notes = "<p>Notes: " + "A sturdy stand that folds flat and fits into nearly every gig bag. " * 8 + "</p>"
    sort = (
        "<p>Bestseller:</p><a href='?s=b'>High to low</a><p>Price:</p><a href='?s=pa'>Low to high</a>"
        "<a href='?s=pd'>High to low</a>"
    )
    cards = "".join(
        f"<div><a href='/p/{i}'>{title}</a><a href='/cart/add/{i}'>Add to cart</a><p>2 in stock £{price}</p>"
        f"<a href='/wish/{i}'>Add to Wishlist</a><p><a href='/p/{i}'>{title}</a> (laptop stand)</p>"
        f"<a href='/alert/{i}'>Receive an e-mail alert when this label releases a new title</a>"
        f"<a href='/brand/{i}'>{brand}</a>{notes}</div>"
        for i, (title, price, brand) in enumerate(
            (
                ("Accu Case Uni LTS Laptop Stand", "21.71", "American Audio"),
                ("Crane Elite Laptop Stand (black/silver)", "104.16", "Crane"),
                ("Kam LS02 Laptop Stand", "20.83", "Kam"),
            )
        )
    )
    products = observe_page(listing(sort + cards), url="https://shop.example/equipment", simplified=False).facts
    assert [(p.title, p.price, p.currency) for p in products.products] == [
        ("Accu Case Uni LTS Laptop Stand", 21.71, "GBP"),
        ("Crane Elite Laptop Stand (black/silver)", 104.16, "GBP"),
        ("Kam LS02 Laptop Stand", 20.83, "GBP"),
    ]


def test_links_drawn_as_spans_with_an_href_and_prices_that_are_links():
    """A price-comparison site's shape: every link a span with an href that the site's script follows, the title
    cut short (the full name in the image's title), the price itself a link to the offer."""
    cards = "".join(
        f'<div><span href="/offer/{i}" title="{full}"><img alt="{full}" src="x.jpg"></span>'
        f'<div><span href="/offer/{i}" title="{full}">{cut}</span></div>'
        f'<div><span href="/offer/{i}">{price} €*</span></div>'
        f'<span href="/offer/{i}">zum Angebot</span><span href="/sofas/p-{i}">Details</span></div>'
        for i, (full, cut, price) in enumerate(
            (
                ("Schlafcouch in hell Grau", "Schlafcouch in hell Grau", "729,00"),
                ("Schlafsofa Faith - Microfaser Anthrazit", "Schlafsofa Faith - Microfaser ...", "419,99"),
                ("Eck-Klappcouch in Braun", "Eck-Klappcouch in Braun", "679,00"),
            )
        )
    )
    observation = observe_page(listing(cards), url="https://shop.example/wohnen/sofas/", simplified=False)
    assert [c.tag for c in observation.candidates if c.text == "zum Angebot"] == ["a", "a", "a"]
    assert [(p.title, p.price, p.currency) for p in observation.facts.products] == [
        ("Schlafcouch in hell Grau", 729.0, "EUR"),
        ("Schlafsofa Faith - Microfaser ...", 419.99, "EUR"),
        ("Eck-Klappcouch in Braun", 679.0, "EUR"),
    ]


def test_a_title_that_names_an_amount_and_an_offer_beside_the_price_are_no_price_links():
    """A gift card's title says its value and a trade-in offer is a link with an amount: neither is the price of a
    card that sells nothing."""
    cards = "".join(
        f"<section><a href='/p/{i}'>{title}</a><a href='/trade/{i}'>Trade in £ {offer}</a></section>"
        for i, (title, offer) in enumerate(
            (("Tablet Air 2 128GB Gold", "361.00"), ("Tablet Air 2 16GB Grey", "239.00"))
        )
    )
    observation = observe_page(listing(cards), url="https://shop.example/tablets", simplified=False)
    assert all(p.price is None or p.price not in (361.0, 239.0) for p in observation.facts.products)
