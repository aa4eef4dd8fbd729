"""The embedded brain on a shop whose names are not Amazon's: a click into its search box is followed by typing as
on Amazon's, a first query is a thing and not the shop's name or "All products", and a twin that has just added
to its cart on a page that stays put follows the page's way to the cart (OPeRA's sessions end at that click)."""

from __future__ import annotations

import pytest

from agent.actions import ClickAction, InputAction
from agent.behaviour.labels import INPUT
from agent.behaviour.query_text import first_query
from agent.brains.embedded import EmbeddedBrain
from agent.history import Step
from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.twin_context import TwinContext
from personas.sources import load_personas

HEADER = (
    "<header><a href='/'>Outfitters</a><a href='/basket/'>View cart</a><form action='/search/'>"
    "<input type='search' name='q' placeholder='Search'><button>Search</button></form></header>"
)
PRODUCT = (
    "<html><head><title>Trail Shoes | Outfitters - our tagline</title></head><body>"
    + HEADER
    + "<article class='product_page'><div class='product_main'><h1>Trail Shoes</h1><p>$79.99</p>"
    "<p>In stock</p><form action='/basket/add/1/'><button>Add to basket</button></form></div></article>"
    "</body></html>"
)
ADDED = PRODUCT.replace(
    "<article",
    "<div class='alert'><p>Trail Shoes has been added to your basket.</p>"
    "<a href='/basket/'>View cart</a> <a href='/checkout/'>Checkout now</a>"
    "</div><article",
)
URL = "https://shop.example/catalogue/trail-shoes_1/"


@pytest.fixture(scope="module")
def brain() -> EmbeddedBrain:
    return EmbeddedBrain()


@pytest.fixture(scope="module")
def personas(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")[:8]


def observe(raw: str, url: str = URL):
    return parse_page(simplify_html(raw, url).html, url=url)


def decide(brain, persona, observation, history, seed=0):
    return brain.decide_sync(
        TwinContext.on_page(
            persona, observation, PredictionInput(history=history, options=PredictOptions(mode="sample", seed=seed))
        )
    )


def test_a_click_into_any_shops_search_box_is_followed_by_typing_as_on_amazon(brain):
    page = observe(PRODUCT)
    box = next(c for c in page.candidates if c.kind == "input")
    button = next(c for c in page.candidates if c.click_type == "search" and c.kind != "input")

    def typing(name):
        history = [Step(action=ClickAction(name=name), click_type="search", url=URL)]
        return brain.decide_sync(TwinContext.on_page(None, page, PredictionInput(history=history))).details[
            "probabilities"
        ][INPUT]

    assert typing(box.name) > 2 * typing(button.name)


def test_a_first_query_is_a_thing_not_the_shop_or_the_kind_of_page():
    assert first_query("Trail Shoes | Outfitters - our tagline", []) == "trail shoes"
    assert first_query("Amazon.com : red basketball shoes", []) == "red basketball shoes"
    shown = ["Wool Socks (3 pack)", "Trail Shoes"]
    assert first_query("All products | Outfitters", [], in_view=shown) == "wool socks 3 pack"
    assert first_query("Basket | Outfitters", ["I was shopping for running shoes."]) == "running shoes"
    assert first_query("All products | Outfitters", []) == "best sellers"


def test_after_adding_to_the_cart_on_a_page_that_stays_put_the_twin_goes_to_the_cart(brain, personas):
    added = observe(ADDED)
    history = [
        Step(action=InputAction(name="header.form.search", text="trail shoes"), url=URL),
        Step(action=ClickAction(name="trail_shoes.title"), click_type="product_link", url=URL),
        Step(action=ClickAction(name="trail_shoes.form.add_to_basket"), click_type="purchase", url=URL),
    ]
    for persona in personas:
        decision = decide(brain, persona, added, history)
        assert decision.action == ClickAction(name="page.view_cart")
        assert decision.details["element"]["source"] == "follow_through"
        assert "cart" in decision.rationale
    # without the message's cart link, the checkout link; without either, or without a purchase just before,
    # the model decides as always
    only_checkout = observe(ADDED.replace("<a href='/basket/'>View cart</a>", ""))
    assert decide(brain, personas[0], only_checkout, history).action == ClickAction(name="page.checkout_now")
    before = observe(PRODUCT)
    assert decide(brain, personas[0], before, history).details["element"].get("source") != "follow_through"
    assert all(
        decide(brain, p, added, history[:2]).details["element"].get("source") != "follow_through" for p in personas
    )


def test_a_twin_types_its_queries_into_search_boxes_not_into_an_email_or_password_box(brain, personas):
    gateway = observe(
        "<html><head><title>Checkout | Outfitters</title></head><body><h1>Who are you?</h1><form>"
        "<label for='e'>My email address is</label><input id='e' type='email' name='username'>"
        "<label for='p'>Password</label><input id='p' type='password' name='password'>"
        "<button type='submit'>Continue</button></form></body></html>",
        "https://shop.example/checkout/",
    )
    history = [Step(action=ClickAction(name="page.proceed_to_checkout"), click_type="purchase", url=URL)]
    actions = [decide(brain, p, gateway, history, seed).action for p in personas for seed in range(5)]
    assert not any(action.type == "input" for action in actions)
    assert any(action.type == "click" for action in actions)  # the boxes and the button are still there to click
