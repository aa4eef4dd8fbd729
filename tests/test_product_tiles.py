"""A product page of any shop, as twins read it: the products it recommends as tiles (a link whose own text is a
title and a price) open products and are what the page's own price is held against (agent/page/product_tiles.py,
agent/page/click_types.links_a_product); and a review count is held against a norm the twin can know
(agent/behaviour/page_terms.page_references). Generic markup, no shop's page."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.behaviour.labels import PURCHASE
from agent.behaviour.page_terms import PRIORS, page_effect, page_references
from agent.brains.embedded import EmbeddedBrain
from agent.page.click_types import links_a_product
from agent.page.facts_model import PageFacts, ProductFacts
from agent.page.read_page import observe_page
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.twin_context import TwinContext
from personas.sensitivities import NEUTRAL

TILES = (
    ("Leather belt, black", "39,95 €"),
    ("Canvas belt - navy", "24,95 €"),
    ("Braided belt, brown", "44,95 €"),
    ("Reversible belt", "49,95 €"),
)


def page(price: str = "38,15 €", tiles=TILES, reviews: int = 68) -> str:
    shown = "".join(f'<a href="/p/{i}">{title} {amount}</a>' for i, (title, amount) in enumerate(tiles))
    return (
        "<html><head><title>Classic belt | Shop</title></head><body>"
        '<header><a href="/sale">Everything under 10 €</a></header>'
        f"<main><h1>Classic belt</h1><p>{price}</p><p>{reviews} reviews</p><p>In stock</p>"
        "<button>In den Warenkorb</button>"
        f'<section><h2>You may also like</h2>{shown}<a href="/deals">Everything under 10 €</a></section>'
        "</main></body></html>"
    )


def read(html: str):
    return observe_page(html, url="https://shop.example/p/classic-belt", simplified=False)


@pytest.mark.parametrize(
    ("text", "tag", "role", "name", "expected"),
    [
        ("Leather belt, black 39,95 €", "a", None, "main.leather_belt", True),
        ("\u221215 % Calvin Jeans SQUARE - Belt - black 38,35 € 44,95 €", "span", "link", "page.square_belt", True),
        ("Leather belt, black 39,95 €", "button", None, "main.leather_belt", False),  # not a link
        ("Leather belt, black 39,95 €", "a", None, "header.leather_belt", False),  # the site's frame
        ("Everything under 10 €", "a", None, "main.sale", False),  # a threshold, not a price
        ("Tout à moins de 10€", "a", None, "main.promo", False),
        ("Free delivery over £50", "a", None, "main.delivery", False),
        ("39,95 €", "a", None, "main.price", False),  # no title
        ("Leather belt, black", "a", None, "main.leather_belt", False),  # no price
    ],
)
def test_a_link_showing_a_title_and_its_price_opens_a_product(text, tag, role, name, expected):
    assert links_a_product(name, tag, role, text) is expected


def test_a_product_pages_tiles_are_its_other_products_and_its_price_is_held_against_them():
    observation = read(page())
    assert observation.page_type == "product"
    facts = observation.facts
    own = facts.focus_product
    assert facts.focus == 0 and own.title == "Classic belt" and own.price == 38.15 and own.currency == "EUR"
    tiles = facts.alternatives()
    assert [(p.title, p.price, p.currency) for p in tiles] == [
        ("Leather belt, black", 39.95, "EUR"),
        ("Canvas belt - navy", 24.95, "EUR"),
        ("Braided belt, brown", 44.95, "EUR"),
        ("Reversible belt", 49.95, "EUR"),
    ]
    opened = {c.name: c.click_type for c in observation.candidates}
    assert all(opened[p.name] == "product_link" for p in tiles)
    assert [c.click_type for c in observation.candidates if c.text == "Everything under 10 €"] == ["other", "other"]
    effect = page_effect(facts, NEUTRAL)
    against = next(d for d in effect.drivers if d.kind == "price_vs_page")
    assert against.reference == pytest.approx((39.95 + 44.95) / 2) and against.shift > 0
    # The same product at 2.5x its price: dearer than what the page shows beside it, so less bought.
    dearer = page_effect(read(page(price="95,38 €")).facts, NEUTRAL)
    assert dearer.shifts[PURCHASE] < effect.shifts[PURCHASE] - 2.0


def test_one_tile_is_no_reference_and_the_own_product_is_not_taken_from_the_tiles():
    facts = read(page(tiles=TILES[:1])).facts
    assert len(facts.products) == 1 and facts.focus_product.title == "Classic belt"
    assert not [d for d in page_effect(facts, NEUTRAL).drivers if d.kind == "price_vs_page"]


def _reviews_shift(count: int, currency: str | None) -> tuple[float, str | None]:
    facts = PageFacts(
        products=(ProductFacts(title="Belt", price=20.0, currency=currency, rating=4.5, review_count=count),),
        focus=0,
        currency=currency,
    )
    driver = next(d for d in page_effect(facts, NEUTRAL).drivers if d.kind == "reviews")
    return driver.shift, driver.note


def test_review_volume_is_held_against_the_market_the_twin_knows():
    # In US dollars (OPeRA's amazon.com) the expectation is unchanged: 68 reviews fall short of 1,000.
    usd, note = _reviews_shift(68, "USD")
    assert usd < 0 and note is None and _reviews_shift(68, None)[0] == usd
    assert page_references(PageFacts(), NEUTRAL, PRIORS, currency="USD").reviews == PRIORS.typical_reviews
    # In another currency the twin does not know the shop's norm: past the first reviews nothing is missing ...
    eur, note = _reviews_shift(68, "EUR")
    assert eur == 0.0 and "EUR" in note and "first 5 reviews" in note
    # ... but fewer than the first reviews still count against the product, and none count most.
    few, _ = _reviews_shift(2, "EUR")
    none, _ = _reviews_shift(0, "RON")
    assert none < few < 0
    # Other products on the page are the reference wherever they are shown, in any currency.
    facts = PageFacts(
        products=tuple(
            ProductFacts(title=t, price=20.0, currency="EUR", rating=4.5, review_count=n)
            for t, n in (("a", 68), ("b", 500), ("c", 900))
        ),
        focus=0,
        currency="EUR",
    )
    refs = page_references(facts, NEUTRAL, PRIORS, exclude=0, currency="EUR")
    assert refs.reviews == 700.0 and refs.reviews_note is None


@pytest.fixture(scope="module")
def persona(opera_dir):
    from personas.sources import load_personas

    return next(p for p in load_personas(opera_dir / "personas.jsonl"))


def test_twins_buy_less_when_the_product_costs_more_than_the_tiles_beside_it(persona):
    """The embedded brain on the generic page: purchase probability at the page's price and at 2.5x it."""
    brain = EmbeddedBrain()

    def buy_probability(html: str) -> float:
        decision = brain.decide_sync(
            TwinContext.on_page(
                persona, read(html), PredictionInput(options=PredictOptions(mode="most_likely", seed=1))
            )
        )
        return decision.details["probabilities"][PURCHASE]

    assert buy_probability(page(price="95,38 €")) < 0.5 * buy_probability(page())


def test_a_page_in_dollars_keeps_the_thousand_review_expectation():
    facts = read(page(price="$38.15", tiles=(), reviews=68)).facts
    assert facts.focus_product.currency == "USD"
    effect = page_effect(facts, replace(NEUTRAL))
    reviews = next(d for d in effect.drivers if d.kind == "reviews")
    assert reviews.reference == PRIORS.typical_reviews and reviews.shift < 0


def test_a_tiles_own_buy_button_buys_the_tile_not_the_product_in_view():
    """Tiles with their own "Add to shopping bag" (as ikea.com/gb lays out "Similar products"; two tiles whose titles
    begin alike share a group name): each button goes to the tile before it, the page's product keeps its own."""
    tiles = "".join(
        f'<div><a href="/p/{i}">{title} {amount}</a><button>Add to shopping bag</button></div>'
        for i, (title, amount) in enumerate(
            [("NORDEN Table 155 cm", "£ 229"), ("NORDEN Table 241 cm", "£ 350"), ("SKOGSTA Table", "£ 399")]
        )
    )
    html = (
        "<html><body><main><h1>MÖCKELBY Table</h1><p>£ 450</p><button>Add to shopping bag</button>"
        f"<section><h2>Similar products</h2>{tiles}</section></main></body></html>"
    )
    observation = observe_page(html, url="https://shop.example/gb/p/mockelby-table", simplified=False)
    facts = observation.facts
    own = facts.focus_product
    assert own.price == 450.0 and len(own.buy_names) == 1
    tiles_read = facts.alternatives()
    assert [t.price for t in tiles_read] == [229.0, 350.0, 399.0]
    assert all(len(t.buy_names) == 1 for t in tiles_read)
    every = [own.buy_names[0], *(t.buy_names[0] for t in tiles_read)]
    assert len(set(every)) == 4 and all(observation.by_name[n].click_type == "purchase" for n in every)
    positions = [observation.by_name[n].position for n in every[1:]]
    tile_links = [observation.by_name[t.name].position for t in tiles_read]
    assert all(link < button for link, button in zip(tile_links, positions, strict=True))
