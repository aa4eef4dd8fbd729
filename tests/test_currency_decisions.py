"""A twin on a page in another currency (agent/behaviour/page_terms.py): prices are compared within the page's
currency; the monthly budget, which OPeRA's survey states in US dollars (Wang et al. 2025, arXiv 2506.05606,
CC-BY-4.0), is held against a price converted with the shipped, dated table, and the decision's evidence says at
which rate; a currency the table does not hold skips the budget term, and the evidence says why."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.behaviour.page_terms import PRIORS, appeal, page_effect, page_references
from agent.brains.embedded import EmbeddedBrain
from agent.page.exchange_rates import rate_date, to_usd
from agent.page.facts_model import PageFacts, ProductFacts
from agent.page.read_page import observe_page
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.twin_context import TwinContext
from personas.sensitivities import NEUTRAL

BUDGET = replace(NEUTRAL, monthly_budget=100.0)


def product(price: float, currency: str | None, **kw) -> ProductFacts:
    return ProductFacts(title="Sofa", price=price, currency=currency, **kw)


def test_a_price_in_pounds_is_held_against_a_dollar_budget_at_the_tables_rate():
    drivers = appeal(product(340.0, "GBP"), page_references(PageFacts(), BUDGET, PRIORS), BUDGET, PRIORS, False)
    budget = next(d for d in drivers if d.kind == "price_vs_budget")
    usd = to_usd(340.0, "GBP")
    assert usd.usd > 100.0 and budget.shift < 0 and budget.currency == "GBP"
    assert budget.note == usd.describe() and rate_date() in budget.note and "ECB" in budget.note


def test_within_the_budget_once_converted_no_budget_term():
    """AED 300 is about $82: within a $100 budget, though 300 is more than 100."""
    drivers = appeal(product(300.0, "AED"), page_references(PageFacts(), BUDGET, PRIORS), BUDGET, PRIORS, False)
    assert not [d for d in drivers if d.kind == "price_vs_budget"]
    in_dollars = appeal(product(300.0, "USD"), page_references(PageFacts(), BUDGET, PRIORS), BUDGET, PRIORS, False)
    assert [d for d in in_dollars if d.kind == "price_vs_budget"]


def test_a_currency_without_a_rate_skips_the_budget_term_and_says_why():
    drivers = appeal(product(150000.0, "ARS"), page_references(PageFacts(), BUDGET, PRIORS), BUDGET, PRIORS, False)
    skipped = [d for d in drivers if d.kind == "budget_not_compared"]
    assert len(skipped) == 1 and skipped[0].shift == 0.0 and "ARS" in skipped[0].note
    assert not [d for d in drivers if d.kind == "price_vs_budget"]


def test_prices_in_another_currency_are_no_reference_on_the_page():
    facts = PageFacts(
        products=(
            product(100.0, "EUR"),
            product(50.0, "EUR"),
            product(60.0, "EUR"),
            product(1.0, "JPY"),
            product(2.0, "JPY"),
        ),
        focus=0,
        currency="EUR",
    )
    refs = page_references(facts, NEUTRAL, PRIORS, exclude=0, currency="EUR")
    assert refs.price == 55.0  # the euro prices only
    effect = page_effect(facts, NEUTRAL)
    assert next(d for d in effect.drivers if d.kind == "price_vs_page").reference == 55.0


PAGE = (
    "<html><head><title>Sofa | Shop</title></head><body><main><h1>Sofa bed</h1><p>{price}</p>"
    "<p>In stock</p><button>Add to basket</button></main></body></html>"
)


@pytest.fixture(scope="module")
def persona(opera_dir):
    from personas.sources import load_personas

    return next(p for p in load_personas(opera_dir / "personas.jsonl"))


def test_the_twins_evidence_and_words_carry_the_conversion(persona):
    """The embedded brain on a real decision: the page's pounds, the budget in dollars, the rate named."""
    observation = observe_page(PAGE.format(price="£4,999.00"), url="https://shop.example/p/sofa", simplified=False)
    assert observation.facts.focus_product.currency == "GBP"
    decision = EmbeddedBrain().decide_sync(
        TwinContext.on_page(persona, observation, PredictionInput(options=PredictOptions(seed=1)))
    )
    budget = [d for d in decision.details["page_drivers"] if d["kind"] == "price_vs_budget"]
    assert budget and budget[0]["currency"] == "GBP" and "GBP 4,999.00 ≈ $" in budget[0]["note"]
    unknown = observe_page(PAGE.format(price="ARS 4.999.000"), url="https://shop.example/p/sofa", simplified=False)
    decision = EmbeddedBrain().decide_sync(
        TwinContext.on_page(persona, unknown, PredictionInput(options=PredictOptions(seed=1)))
    )
    kinds = {d["kind"]: d for d in decision.details["page_drivers"]}
    assert "price_vs_budget" not in kinds and "no ARS exchange rate" in kinds["budget_not_compared"]["note"]
