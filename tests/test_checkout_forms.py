"""Twins going on with an order on any shop: what a checkout form's fields ask for (type, autocomplete, label,
name), the made-up TEST details that fill them, the checkout's own steps as purchase-type clicks, the order
confirmation page in shop-neutral words, and the embedded brain's choice at each step (go on or leave). The form
filling runs in real Chromium on a checkout written like another platform's (autocomplete tokens, a country
drop-down, a terms box, a guest/account choice), not the test shop's."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from pydantic import ValidationError

from agent.actions import ClickAction
from agent.behaviour.checkout_steps import checkout_step
from agent.behaviour.labels import LABEL_INDEX, LABELS, PURCHASE, TERMINATE
from agent.behaviour.model import LabelDistribution
from agent.brains.embedded import EmbeddedBrain
from agent.browser.form_fields import field_kind
from agent.history import Step
from agent.page.page_types import is_order_confirmation
from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.simulation import SimulationConfig
from agent.simulation.checkout_details import CheckoutDetails, short_id
from agent.simulation.funnel import is_purchase, stages_reached
from agent.twin_context import TwinContext
from personas.persona import Demographics, Persona
from personas.sources import load_personas

CHECKOUT_URL = "https://shop.example/checkouts/c/abc123/information"
CHECKOUT = """<html><head><title>Information - Example Store - Checkout</title></head><body>
<header><a href="/">Example Store</a><nav><a href="/cart">Cart</a></nav></header>
<main><h1>Contact</h1>
<form action="/checkouts/c/abc123/shipping" method="post">
  <input type="hidden" name="checkout[token]" value="x">
  <label for="e">Email or mobile phone number</label><input id="e" name="checkout[email]" autocomplete="email" required>
  <fieldset><legend>Account</legend>
    <label><input type="radio" name="account" value="login"> Sign in to my account</label>
    <label><input type="radio" name="account" value="guest"> Check out as a guest</label></fieldset>
  <input type="password" name="checkout[password]" aria-label="Password" required>
  <h2>Delivery</h2>
  <select name="checkout[shipping_address][country]" autocomplete="shipping country" required>
    <option value="">Country/region</option><option value="CA">Canada</option>
    <option value="US">United States</option></select>
  <input name="checkout[shipping_address][first_name]" placeholder="First name (optional)">
  <input name="checkout[shipping_address][last_name]" autocomplete="shipping family-name" placeholder="Last name" \
required>
  <input name="checkout[shipping_address][address1]" autocomplete="shipping address-line1" placeholder="Address" \
required>
  <input name="checkout[shipping_address][address2]" placeholder="Apartment, suite, etc. (optional)">
  <input name="checkout[shipping_address][city]" placeholder="City" required>
  <input name="checkout[shipping_address][zip]" placeholder="ZIP code" required>
  <input name="checkout[shipping_address][company]" placeholder="Company *">
  <input name="checkout[shipping_address][phone]" type="tel" placeholder="Phone (optional)">
  <label><input type="checkbox" name="terms" required> I agree to the terms of service</label>
  <button type="submit">Continue to shipping</button>
  <a href="/cart">Return to cart</a> <a href="/collections/all">Continue shopping</a>
</form></main></body></html>"""


def observe(raw: str, url: str = CHECKOUT_URL):
    return parse_page(simplify_html(raw, url).html, url=url)


@pytest.mark.parametrize(
    ("attributes", "kind"),
    [
        ({"input_type": "email", "label": "My email address is"}, "email"),
        ({"autocomplete": "shipping given-name", "label": "Vorname"}, "first_name"),
        ({"autocomplete": "billing postal-code"}, "postcode"),
        ({"label": "First line of address", "name": "line1"}, "address_line1"),
        ({"label": "Second line of address", "name": "line2"}, "address_line2"),
        ({"label": "Third line of address", "name": "line3"}, "address_line3"),
        ({"label": "City", "name": "line4"}, "city"),  # the label says what a shop's own field name does not
        ({"label": "Post/Zip-code", "name": "postcode"}, "postcode"),
        ({"label": "State/County", "name": "state"}, "state"),
        ({"name": "billingAddress[lastName]"}, "last_name"),
        ({"name": "customer_surname"}, "last_name"),
        ({"label": "Town / City *"}, "city"),
        ({"input_type": "tel", "label": "Mobile"}, "phone"),
        ({"label": "Country/region", "name": "country_code"}, "country"),
        ({"label": "Full name"}, "full_name"),
        ({"label": "Instructions", "name": "notes"}, None),
        ({"label": "Name on card"}, None),
        ({"label": "Company name"}, None),
    ],
)
def test_what_a_field_asks_for_is_read_from_its_type_autocomplete_label_and_name(attributes, kind):
    assert field_kind(**{("element_id" if k == "id" else k): v for k, v in attributes.items()}) == kind


def test_test_details_are_labelled_made_up_values_with_the_persons_city_where_known():
    person = Persona(id="3A65C43E-e4e3-4280", demographics=Demographics(city="malden, MA"))
    values = CheckoutDetails().values_for(person)
    assert values["email"] == "twin+3a65c43e@example.com" and short_id(person.id) == "3a65c43e"
    assert values["city"] == "Malden" and values["first_name"] == "Test" and values["address_line1"] == "1 Test Street"
    assert CheckoutDetails().values_for(Persona(id="nobody"))["city"] == "Testville"
    assert CheckoutDetails(city="Springfield").values_for(person)["city"] == "Springfield"
    with pytest.raises(ValidationError, match="must be an email address"):
        CheckoutDetails(email="not an address")
    with pytest.raises(ValidationError):
        SimulationConfig(url="http://127.0.0.1:1/", persona_ids=["a"], checkout_details={"fax": "1"})
    assert (
        SimulationConfig(url="http://127.0.0.1:1/", persona_ids=["a"], checkout_details=None).checkout_details is None
    )


def test_a_checkouts_own_steps_are_purchase_clicks_and_leaving_it_is_not():
    page = observe(CHECKOUT)
    types = {c.text: c.click_type for c in page.candidates}
    assert page.page_type == "checkout"
    assert types["Continue to shipping"] == "purchase"
    assert types["Continue shopping"] != "purchase" and types["Return to cart"] != "purchase"
    # Off a checkout page (neither its address nor its title says checkout), "Continue" is nothing in particular.
    survey = CHECKOUT.replace("Continue to shipping", "Continue").replace(" - Checkout</title>", "</title>")
    elsewhere = observe(survey, "https://shop.example/survey")
    assert elsewhere.page_type != "checkout"
    titled = observe(CHECKOUT.replace("Continue to shipping", "Continue"), "https://shop.example/survey")
    assert titled.page_type == "checkout"  # "Information - Example Store - Checkout": its title says so
    assert next(c for c in elsewhere.candidates if c.text == "Continue").click_type == "other"
    # Going through a step does not end the run; the control that places the order does.
    assert not is_purchase("form.continue_to_shipping", "purchase", "checkout")
    assert is_purchase("form.place_order", "purchase", "checkout") and is_purchase("buy_now", "purchase", "checkout")
    assert stages_reached(["search_results", "checkout"], True, True) == ["search", "checkout", "purchase", "order"]


@pytest.mark.parametrize(
    ("url", "title", "text", "confirmed"),
    [
        ("https://s.example/checkout/thank-you/", "", "", True),
        ("https://s.example/checkout/order-received/1234/", "", "", True),
        ("https://s.example/checkout/onepage/success/", "", "", True),
        ("https://s.example/a", "Order 100001: confirmation | Shop", "", True),
        ("https://s.example/a", "Shop", "Thank you for your order! We'll email you.", True),
        ("https://s.example/a", "Shop", "Your order number is 48213.", True),
        (
            "https://s.example/checkout/preview/",
            "Order preview | Checkout",
            "1. Shipping 4. Preview 5. Confirmation",
            False,
        ),
        ("https://s.example/orders/track", "Track your order", "Enter your order number and email", False),
        ("https://s.example/newsletter", "Thank you for subscribing", "Get 10% off your first order", False),
        ("https://s.example/done", "Thanks!", "Your order is on its way", True),
    ],
)
def test_an_order_confirmation_is_told_by_its_address_title_or_words(url, title, text, confirmed):
    assert is_order_confirmation(url, title, text) is confirmed


def test_after_deciding_to_buy_a_twin_at_a_checkout_step_goes_on_or_leaves_and_never_fiddles(opera_dir):
    """At each checkout step the embedded brain leaves with its model's probability of leaving now and otherwise
    takes the step's purchase-type control: it never clicks into a field, types, or takes another item's
    Add to cart. Off the way to an order (the twin came to the checkout page any other way), it decides freely."""
    brain = EmbeddedBrain()
    page = observe(CHECKOUT)
    personas = load_personas(opera_dir / "personas.jsonl")[:8]
    after_buying = [
        Step(
            action=ClickAction(name="page.proceed_to_checkout"), click_type="purchase", url="https://shop.example/cart"
        )
    ]
    chosen, left, leave_probability = set(), 0, []
    for persona in personas:
        for seed in range(40):
            decision = brain.decide_sync(
                TwinContext.on_page(
                    persona,
                    page,
                    PredictionInput(history=after_buying, options=PredictOptions(mode="sample", seed=seed)),
                )
            )
            if decision.action.type == "terminate":
                left += 1
            else:
                chosen.add((decision.action.type, decision.action.name))
            leave_probability.append(decision.details["probabilities"][TERMINATE])
    step = next(c.name for c in page.candidates if c.text == "Continue to shipping")
    assert chosen == {("click", step)}
    expected = float(np.mean(leave_probability)) * len(leave_probability)
    assert expected > 0 and abs(left - expected) <= 3 * np.sqrt(expected) + 1
    wandering = {
        brain.decide_sync(
            TwinContext.on_page(personas[0], page, PredictionInput(options=PredictOptions(mode="sample", seed=seed)))
        ).details["label"]
        for seed in range(40)
    }
    assert wandering - {PURCHASE, TERMINATE}  # no purchase decision behind it: other actions too


def test_the_step_decision_follows_the_models_probability_of_leaving():
    probabilities = np.full(len(LABELS), 0.0)
    probabilities[LABEL_INDEX[TERMINATE]], probabilities[LABEL_INDEX["other"]] = 0.25, 0.75
    distribution = LabelDistribution.of(probabilities)
    rng = np.random.default_rng(7)
    draws = [checkout_step(distribution, rng) for _ in range(4000)]
    assert set(draws) == {PURCHASE, TERMINATE}
    assert abs(draws.count(TERMINATE) / len(draws) - 0.25) < 0.03
    assert checkout_step(distribution, None) == PURCHASE  # most likely: go on unless leaving is over one half


@pytest.mark.integration
def test_a_checkout_form_on_another_platform_gets_test_details_in_its_required_fields():
    """Real Chromium: the required fields a label, autocomplete token or name explains are filled, the guest choice
    is taken, the country drop-down and the required terms box are set; optional fields, the password and a
    required field nothing explains are left empty and listed."""
    from playwright.async_api import async_playwright

    from agent.browser.chromium import launch
    from agent.browser.snapshot import SnapshotTaker
    from agent.simulation.checkout_form import fill_checkout_form

    person = Persona(id="ab12cd34-ffff", demographics=Demographics(city="Boston"))

    async def fill():
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            try:
                page = await (await browser.new_context()).new_page()
                await page.set_content(CHECKOUT)
                snapshot = await SnapshotTaker().take(page)
                step = next(c.name for c in snapshot.observation.candidates if c.text == "Continue to shipping")
                filled = await fill_checkout_form(page, snapshot, step, CheckoutDetails().values_for(person))
                values = await page.evaluate("""() => Object.fromEntries([...document.forms[0].elements]
                    .filter(e => e.name).map(e => [e.name, e.type === 'checkbox' || e.type === 'radio'
                    ? (e.checked ? e.value : '') : e.value]))""")
                return filled, values
            finally:
                await browser.close()

    filled, values = asyncio.run(fill())
    field = "checkout[shipping_address][{}]".format
    assert values["checkout[email]"] == "twin+ab12cd34@example.com"
    assert values[field("last_name")] == "Twin" and values[field("address1")] == "1 Test Street"
    assert values[field("city")] == "Boston" and values[field("zip")] == "12345" and values[field("country")] == "US"
    assert values["terms"] == "on" and values["account"] == "guest"
    assert values[field("first_name")] == values[field("address2")] == values[field("phone")] == ""  # optional
    assert values["checkout[password]"] == "" and values[field("company")] == ""
    assert values["checkout[token]"] == "x"  # hidden fields are the shop's
    by_label = {f.label: f for f in filled}
    assert by_label["Password"].value is None and "no account" in by_label["Password"].note
    assert by_label["Company *"].value is None and "left empty" in by_label["Company *"].note
    assert all(f.test_detail for f in filled)
    assert {f.kind for f in filled if f.value} == {
        "email",
        "last_name",
        "address_line1",
        "city",
        "postcode",
        "country",
        "choice",
        "checkbox",
    }
    assert all(f.name for f in filled if f.kind in ("email", "city"))  # named as the twin read the page
