"""Page terms one function at a time (agent/behaviour/page_terms.py): social proof, the references a fact is
compared with, the appeal of a product against them, and how an effect moves the label distribution."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from agent.behaviour.labels import LABEL_INDEX, LABELS, PURCHASE, TERMINATE
from agent.behaviour.page_terms import (
    LOOK_ELSEWHERE,
    PRIORS,
    Driver,
    appeal,
    apply_effect,
    page_effect,
    page_references,
    social_proof,
)
from agent.page.facts_model import PageFacts, ProductFacts
from personas.sensitivities import NEUTRAL, Sensitivities


def test_social_proof_is_steep_for_the_first_reviews_then_the_volume_elasticity():
    c = PRIORS
    assert social_proof(0, c) == 0.0
    assert social_proof(5, c) == pytest.approx(c.first_reviews)
    for n in range(1, 6):
        assert social_proof(n, c) == pytest.approx(c.first_reviews * n / 5)  # linear over the first five
    assert social_proof(50, c) - social_proof(5, c) == pytest.approx(c.volume_elasticity * math.log(10))
    assert social_proof(5000, c) - social_proof(500, c) == pytest.approx(c.volume_elasticity * math.log(10))
    per_review_first = (social_proof(5, c) - social_proof(0, c)) / 5
    per_review_after = (social_proof(10, c) - social_proof(5, c)) / 5
    assert per_review_first > 5 * per_review_after
    steeper = replace(c, volume_elasticity=0.5)
    assert social_proof(500, steeper) - social_proof(5, steeper) == pytest.approx(0.5 * math.log(100))


def _product(price=None, rating=None, reviews=None, days=None, fee=None, **kw) -> ProductFacts:
    return ProductFacts(
        title="x", price=price, rating=rating, review_count=reviews, delivery_days=days, delivery_fee=fee, **kw
    )


def test_references_are_the_median_of_the_other_products():
    facts = PageFacts(
        products=(
            _product(100.0, 2.0, 3, 9),
            _product(10.0, 4.0, 100, 1),
            _product(20.0, 4.4, 300, 3, fee=5.0),
            _product(40.0, 4.8, 900, 5),
        ),
        focus=0,
    )
    refs = page_references(facts, NEUTRAL, PRIORS, exclude=0)
    assert refs.price == 25.0  # 10, 20 + 5 delivery, 40
    assert refs.rating == 4.4 and refs.reviews == 300.0 and refs.days == 3.0
    assert refs.expected == frozenset()
    whole = page_references(facts, NEUTRAL, PRIORS, exclude=None)
    assert whole.price == pytest.approx((25.0 + 40.0) / 2) and whole.rating == pytest.approx(4.2)


def test_references_fall_back_on_the_expectation_with_fewer_than_two_others():
    facts = PageFacts(products=(_product(30.0, 4.0, 10, 2), _product(12.0, 3.0, 50, 4)), focus=0)
    for prime, days in (
        (True, PRIORS.expected_days_prime),
        (False, PRIORS.expected_days),
        (None, PRIORS.expected_days),
    ):
        refs = page_references(facts, Sensitivities(prime=prime), PRIORS, exclude=0)
        assert refs.price is None  # a price is held only against the page
        assert refs.rating == PRIORS.expected_rating and refs.reviews == PRIORS.typical_reviews and refs.days == days
        assert refs.expected == frozenset({"rating", "reviews", "days"})
    # Two others with ratings but one with a count: ratings from the page, reviews expected.
    facts = PageFacts(products=(_product(30.0), _product(10.0, 4.0, 10), _product(20.0, 4.6)), focus=0)
    refs = page_references(facts, NEUTRAL, PRIORS, exclude=0)
    assert refs.rating == pytest.approx(4.3) and refs.reviews == PRIORS.typical_reviews
    assert refs.expected == frozenset({"reviews", "days"})


def _focus_appeal(price: float, others=(10.0, 20.0, 30.0), sens: Sensitivities = NEUTRAL) -> tuple[float, list[Driver]]:
    # The product in view has stars and reviews above what a shopper expects: only its price moves it.
    facts = PageFacts(products=(_product(price, 4.5, 5000), *(_product(p) for p in others)), focus=0)
    effect = page_effect(facts, sens)
    return effect.shifts[PURCHASE], list(effect.drivers)


def test_price_against_the_page_cheaper_appeals_pricier_does_not():
    cheap, cheap_drivers = _focus_appeal(10.0)
    dear, dear_drivers = _focus_appeal(40.0)
    assert cheap > 0 > dear
    (driver,) = [d for d in cheap_drivers if d.kind == "price_vs_page"]
    assert driver.reference == 20.0 and driver.shift == pytest.approx(-PRIORS.price_elasticity * math.log(10 / 20))
    (driver,) = [d for d in dear_drivers if d.kind == "price_vs_page"]
    assert driver.shift == pytest.approx(-PRIORS.price_elasticity * math.log(40 / 20))
    assert _focus_appeal(20.0)[0] == pytest.approx(0.0)
    # A price-conscious person weighs it more, one who is not less.
    assert (
        _focus_appeal(40.0, sens=Sensitivities(price=1.0))[0]
        < dear
        < _focus_appeal(40.0, sens=Sensitivities(price=-1.0))[0]
        < 0
    )
    # Unappealing: leaving and looking elsewhere rise by the unappeal; an appealing product moves neither.
    shifts = page_effect(
        PageFacts(products=(_product(40.0, 4.5, 5000), _product(10.0), _product(20.0)), focus=0), NEUTRAL
    ).shifts
    assert shifts[PURCHASE] < 0 and shifts[TERMINATE] == pytest.approx(PRIORS.leave_per_appeal * -shifts[PURCHASE])
    assert all(shifts[label] == pytest.approx(PRIORS.look_per_appeal * -shifts[PURCHASE]) for label in LOOK_ELSEWHERE)
    shifts = page_effect(
        PageFacts(products=(_product(10.0, 4.5, 5000), _product(20.0), _product(30.0)), focus=0), NEUTRAL
    ).shifts
    assert shifts[TERMINATE] == 0.0 and all(shifts[label] == 0.0 for label in LOOK_ELSEWHERE)


def test_an_expectation_only_reference_counts_only_shortfalls():
    def alone(**kw):
        return {
            d.kind: d.shift
            for d in appeal(
                _product(20.0, **kw),
                page_references(PageFacts(products=(_product(20.0, **kw),), focus=0), NEUTRAL, PRIORS, 0),
                NEUTRAL,
                PRIORS,
                reviews_expected=True,
            )
        }

    assert alone(rating=4.9, reviews=50_000)["rating"] == 0.0
    assert alone(rating=4.9, reviews=50_000)["reviews"] == 0.0
    assert alone(rating=3.5, reviews=10)["rating"] == pytest.approx(PRIORS.rating_elasticity * math.log(3.5 / 4.35))
    shortfall = social_proof(10, PRIORS) - social_proof(PRIORS.typical_reviews, PRIORS)
    assert shortfall < 0 and alone(rating=3.5, reviews=10)["reviews"] == pytest.approx(shortfall)
    assert alone(rating=4.0, days=9)["delivery_days"] < 0 and alone(rating=4.0, days=0)["delivery_days"] == 0.0
    # No count on the product's own page where reviews would show: read as none.
    assert alone(rating=4.0)["reviews"] == pytest.approx(-social_proof(PRIORS.typical_reviews, PRIORS))
    # Against other products on the page, both ways count.
    facts = PageFacts(
        products=(_product(20.0, 4.9, 50_000), _product(20.0, 4.0, 100), _product(20.0, 4.2, 300)), focus=0
    )
    shifts = {d.kind: d.shift for d in page_effect(facts, NEUTRAL).drivers}
    assert shifts["rating"] > 0 and shifts["rating"] == pytest.approx(PRIORS.rating_elasticity * math.log(4.9 / 4.1))
    assert shifts["reviews"] > 0 and shifts["reviews"] == pytest.approx(
        social_proof(50_000, PRIORS) - social_proof(200, PRIORS)
    )


def test_apply_effect_moves_all_purchase_mass_of_an_unavailable_product():
    # Facts level with the page's other products: no other term moves anything, only the stock-out does.
    facts = PageFacts(
        products=(
            _product(20.0, 4.5, 1000, availability="unavailable", buy_names=("buybox.add_to_cart",)),
            _product(10.0, 4.5, 1000, name="similar.a.product_name"),
            _product(30.0, 4.5, 1000, name="similar.b.product_name"),
        ),
        focus=0,
    )
    effect = page_effect(facts, NEUTRAL)
    assert effect.focus_unavailable and "buybox.add_to_cart" in effect.unavailable_names
    rng = np.random.default_rng(1)
    base = rng.dirichlet(np.ones(len(LABELS)))
    after = apply_effect(base, effect)
    purchase, terminate = LABEL_INDEX[PURCHASE], LABEL_INDEX[TERMINATE]
    look = [LABEL_INDEX[label] for label in LOOK_ELSEWHERE]
    freed = base[purchase]
    assert after.sum() == pytest.approx(1.0) and after[purchase] == 0.0
    assert after[terminate] == pytest.approx(base[terminate] + PRIORS.stockout_leave * freed)
    assert after[look].sum() == pytest.approx(base[look].sum() + (1 - PRIORS.stockout_leave) * freed)
    assert after[look] / after[look].sum() == pytest.approx(base[look] / base[look].sum())  # shares kept
    rest = [i for i in range(len(LABELS)) if i not in (purchase, terminate, *look)]
    assert after[rest] == pytest.approx(base[rest])
    # Nowhere else to look: all of it goes to leaving.
    no_look = base.copy()
    no_look[look] = 0.0
    no_look /= no_look.sum()
    after = apply_effect(no_look, effect)
    assert after[terminate] == pytest.approx(no_look[terminate] + no_look[purchase]) and after[purchase] == 0.0
    other = replace(PRIORS, stockout_leave=0.9)
    assert apply_effect(base, effect, other)[terminate] == pytest.approx(base[terminate] + 0.9 * freed)


def test_an_unavailable_product_still_weighs_by_what_the_page_says_of_it():
    """Out of stock and overpriced: leaving rises more than out of stock at the page's price (the other terms
    still apply; only the buying is moved)."""

    def after(price: float) -> np.ndarray:
        facts = PageFacts(
            products=(
                _product(price, 4.5, 1000, availability="unavailable", buy_names=("buybox.add_to_cart",)),
                _product(10.0, 4.5, 1000, name="similar.a.product_name"),
                _product(30.0, 4.5, 1000, name="similar.b.product_name"),
            ),
            focus=0,
        )
        return apply_effect(np.full(len(LABELS), 1.0 / len(LABELS)), page_effect(facts, NEUTRAL))

    terminate = LABEL_INDEX[TERMINATE]
    assert after(80.0)[LABEL_INDEX[PURCHASE]] == after(20.0)[LABEL_INDEX[PURCHASE]] == 0.0
    assert after(80.0)[terminate] > after(20.0)[terminate]
