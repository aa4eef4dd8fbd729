"""The embedded brain reading the page: page terms (agent/behaviour/page_terms.py), their fit
(agent/calibration/page_term_fitting.py), and the decisions and rationales they drive, on the real sample
product page and the 52 real OPeRA personas (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0).

Page variants are made by editing the sample page's text here (prices scaled, list price, rating and review
count changed, reviews, buy buttons or stock removed) and parsed by the real parser. No mocks.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import replace
from statistics import median

import numpy as np
import pytest
from scipy.stats import binomtest

from agent.actions import ClickAction, InputAction
from agent.behaviour.features import LiveContext
from agent.behaviour.history_view import view_history
from agent.behaviour.labels import LABEL_INDEX, LABELS, PURCHASE, TERMINATE
from agent.behaviour.page_index import page_index
from agent.behaviour.page_terms import (
    PRIORS,
    apply_effect,
    page_effect,
)
from agent.behaviour.rationale import _PERSONA_PHRASES, CONTRADICTS
from agent.brains.embedded import EmbeddedBrain
from agent.calibration.page_term_fitting import (
    FITTED,
    MIN_STEPS,
    PageStep,
    design,
    fit_page_terms,
    log_likelihood,
)
from agent.history import Step
from agent.page.facts_model import PageFacts, ProductFacts
from agent.page.parse import parse_page
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.sample_pages import sample_page
from agent.twin_context import TwinContext
from personas.memory_texts import persona_memory_texts
from personas.memory_types import Memory
from personas.sensitivities import NEUTRAL, sensitivities
from personas.sources import load_personas
from tests.support.page_variants import (
    HTML,
    all_priced,
    list_price,
    product_priced,
    rated,
    unavailable,
    without_buying,
    without_reviews,
)

PRODUCT_LINK = "search_results.anker_usb_c_cable_6ft_nylon_braided_usb_a_to_type_c_charger_cord.product_name"
HISTORY = [
    Step(action=InputAction(name="nav_bar.search_input", text="usb c cable")),
    Step(action=ClickAction(name="nav_bar.search_button"), click_type="search"),
    Step(action=ClickAction(name=PRODUCT_LINK), click_type="product_link"),
]
REVIEWING = HISTORY + [Step(action=ClickAction(name="reviews.popover.review_images.next"), click_type="review")] * 2
SEEDS = 20
EXPENSIVE = 449.99


# ---- fixtures ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def personas(opera_dir):
    people = load_personas(opera_dir / "personas.jsonl")
    assert len(people) == 52
    return people


@pytest.fixture(scope="module")
def brain() -> EmbeddedBrain:
    return EmbeddedBrain()


@pytest.fixture(scope="module")
def pages():
    observations = {
        "original": parse_page(HTML),
        "price_x2.5": parse_page(product_priced(HTML, 2.5)),
        "no_reviews": parse_page(without_reviews(HTML)),
        "deal_50": parse_page(list_price(HTML, "$25.98")),
        "no_buy": parse_page(without_buying(HTML)),
        "unavailable": parse_page(unavailable(HTML)),
    }
    focus = {name: o.facts.focus_product for name, o in observations.items()}
    # The edits read as intended.
    assert focus["original"].price == 12.99 and focus["original"].review_count == 48211
    assert focus["price_x2.5"].price == pytest.approx(32.48) and focus["price_x2.5"].discount == pytest.approx(
        focus["original"].discount, abs=1e-3
    )
    assert focus["no_reviews"].rating is None and focus["no_reviews"].review_count == 0  # "No customer reviews"
    assert focus["deal_50"].discount == pytest.approx(0.5)
    assert not observations["no_buy"].facts.can_buy and not focus["no_buy"].buy_names
    assert focus["unavailable"].availability == "unavailable" and focus["unavailable"].buy_names
    return observations


def _seed(person: int, draw: int) -> int:
    """Common random numbers: the same twin and draw use the same seed on every page; different twins differ
    (one seed shared by all twins would make their draws one draw, not 52)."""
    return 1000 * person + draw


@pytest.fixture(scope="module")
def sampled(pages, personas, brain):
    """page -> [persona][draw] -> Decision, sample mode, HISTORY."""
    return {
        name: [
            [
                brain.decide_sync(
                    TwinContext.on_page(
                        p, o, PredictionInput(history=HISTORY, options=PredictOptions(mode="sample", seed=_seed(i, s)))
                    )
                )
                for s in range(SEEDS)
            ]
            for i, p in enumerate(personas)
        ]
        for name, o in pages.items()
    }


def _is(decisions, label: str) -> np.ndarray:
    return np.asarray([[d.details["label"] == label for d in row] for row in decisions])


def _paired(before: np.ndarray, after: np.ndarray) -> tuple[int, int, float]:
    """McNemar's exact test on paired draws: (became true, became false, two-sided p)."""
    up, down = int((after & ~before).sum()), int((before & ~after).sum())
    return up, down, (binomtest(up, up + down, 0.5).pvalue if up + down else 1.0)


# ---- 1. parameter recovery --------------------------------------------------------------------------------

TRUTH = replace(
    PRIORS,
    price_elasticity=1.5,
    deal=2.0,
    rating_elasticity=1.2,
    volume_elasticity=0.5,
    leave_per_appeal=0.8,
    look_per_appeal=0.3,
    read_reviews=0.9,
)
# About 4 standard deviations of each estimate at N_STEPS, measured over 8 independent data sets
# (SD: price 0.09, deal 0.12, rating 0.14, volume 0.04, leave 0.05, look 0.02, read 0.08; no bias).
TOLERANCE = {
    "price_elasticity": 0.35,
    "deal": 0.5,
    "rating_elasticity": 0.55,
    "volume_elasticity": 0.18,
    "leave_per_appeal": 0.2,
    "look_per_appeal": 0.09,
    "read_reviews": 0.33,
}
N_STEPS = 8000


@pytest.fixture(scope="module")
def variant_pages():
    """306 parsed product pages: the product at 6 prices x list price as shown / none / twice the price x no
    reviews or 4 ratings x 4 review counts (the alternatives keep their prices)."""
    reviews = [None, *itertools.product([2.5, 3.2, 3.9, 4.7], [2, 30, 400, 48211])]
    observations = []
    for factor, struck, shown in itertools.product([0.6, 1.0, 1.6, 2.5, 4.0, 8.0], ["shown", None, "$25.98"], reviews):
        html = HTML if struck == "shown" else list_price(HTML, struck)
        html = without_reviews(html) if shown is None else rated(html, *shown)
        observations.append(parse_page(product_priced(html, factor)))
    return observations


@pytest.fixture(scope="module")
def recovery(variant_pages, personas, brain):
    """N_STEPS decisions drawn from the page-term model at TRUTH on top of the shipped model's P(label | history)."""
    rng = np.random.default_rng(2506)
    live = LiveContext(page_type="product")
    past = view_history(HISTORY)
    bases = [brain.engine.distribution(past, p, live)[0].probabilities for p in personas]
    people = [sensitivities(p) for p in personas]
    allowed = []
    for observation in variant_pages:
        offered = page_index(observation).allowed.copy()
        offered[LABEL_INDEX[PURCHASE]] &= observation.facts.can_buy
        allowed.append(offered)
    steps = []
    for _ in range(N_STEPS):
        k, i = int(rng.integers(len(variant_pages))), int(rng.integers(len(personas)))
        facts, sens = variant_pages[k].facts, people[i]
        probabilities = np.where(allowed[k], apply_effect(bases[i], page_effect(facts, sens, TRUTH), TRUTH), 0.0)
        label = int(rng.choice(len(LABELS), p=probabilities / probabilities.sum()))
        steps.append(PageStep(facts, sens, bases[i], allowed[k], label))
    return steps, rng


def test_fit_recovers_known_coefficients(recovery, variant_pages):
    """Labels drawn from known coefficients (TRUTH, all unlike the priors) are fitted back, each within
    TOLERANCE: about 4 standard deviations of its estimate at N_STEPS = 8000 steps (measured over 8 data sets
    drawn with other seeds), so a correct fitter fails about never, and each window excludes the prior the
    fit starts from (a fit that does not move fails)."""
    steps, _ = recovery
    labels = Counter(LABELS[s.label] for s in steps)
    assert labels[PURCHASE] > 200 and labels[TERMINATE] > 1000 and labels["review"] > 500, labels
    fitted = fit_page_terms(steps, penalty=0.1)
    assert fitted is not None
    for name in FITTED:
        truth, tolerance = getattr(TRUTH, name), TOLERANCE[name]
        assert abs(getattr(PRIORS, name) - truth) > tolerance, f"{name}: the prior is inside the window"
        assert getattr(fitted, name) == pytest.approx(truth, abs=tolerance), (name, getattr(fitted, name), truth)
    # Coefficients that are not fitted stay the priors.
    assert fitted.first_reviews == PRIORS.first_reviews and fitted.stockout_leave == PRIORS.stockout_leave
    # The fit is at least as likely as the truth (it maximises the same likelihood).
    d = design(steps)

    def at(c):
        return log_likelihood(np.asarray([getattr(c, n) for n in FITTED]), d)

    assert at(fitted) >= at(TRUTH) - 1e-6 > at(PRIORS)


def test_fit_needs_min_steps(recovery):
    steps, _ = recovery
    assert fit_page_terms(steps[: MIN_STEPS - 1]) is None
    assert fit_page_terms([]) is None
    assert fit_page_terms(steps[:MIN_STEPS]) is not None


def test_fit_survives_steps_on_an_unavailable_product_page(recovery, personas, brain):
    """page_steps keeps recorded steps on a product page whose product is out of stock (anything but a
    purchase is allowed there). A few of them among the 8000 must not stop the fit: the coefficients are
    still recovered within TOLERANCE."""
    steps, _ = recovery
    rng = np.random.default_rng(7)
    observation = parse_page(unavailable(HTML))
    offered = page_index(observation).allowed.copy()
    offered[LABEL_INDEX[PURCHASE]] &= observation.facts.can_buy
    live, past = LiveContext(page_type="product"), view_history(HISTORY)
    extra = []
    for person in personas[:40]:
        sens, base = sensitivities(person), brain.engine.distribution(past, person, live)[0].probabilities
        probabilities = np.where(offered, apply_effect(base, page_effect(observation.facts, sens, TRUTH), TRUTH), 0.0)
        extra.append(
            PageStep(
                observation.facts,
                sens,
                base,
                offered,
                int(rng.choice(len(LABELS), p=probabilities / probabilities.sum())),
            )
        )
    fitted = fit_page_terms(steps + extra, penalty=0.1)
    assert fitted is not None
    values = {name: getattr(fitted, name) for name in FITTED}
    assert all(math.isfinite(v) for v in values.values()), values
    for name in FITTED:
        assert values[name] == pytest.approx(getattr(TRUTH, name), abs=TOLERANCE[name]), (name, values)


# ---- 2. acceptance behaviours -----------------------------------------------------------------------------


@pytest.mark.parametrize("page,direction", [("price_x2.5", -1), ("no_reviews", -1), ("deal_50", +1)])
def test_purchase_moves_with_the_page(sampled, page, direction):
    """52 twins x 20 draws, the same seeds on both pages: McNemar's exact test on purchase, p < 0.01."""
    before, after = _is(sampled["original"], PURCHASE), _is(sampled[page], PURCHASE)
    up, down, p = _paired(before, after)
    assert p < 0.01, (page, before.sum(), after.sum(), up, down, p)
    assert direction * (up - down) > 0, (page, before.sum(), after.sum(), up, down)


@pytest.mark.parametrize("page", ["no_buy", "unavailable"])
def test_nothing_is_bought_where_nothing_can_be_bought_and_more_twins_leave(sampled, page):
    assert _is(sampled["original"], PURCHASE).sum() > 0
    assert _is(sampled[page], PURCHASE).sum() == 0
    assert not any(
        d.action.type == "click"
        and ("add_to_cart" in d.action.name or "buy_now" in d.action.name or "subscribe" in d.action.name)
        for row in sampled[page]
        for d in row
    )
    up, down, p = _paired(_is(sampled["original"], TERMINATE), _is(sampled[page], TERMINATE))
    assert up > down and p < 0.01, (page, up, down, p)


def test_price_conscious_twins_drop_more_at_the_higher_price(sampled, personas):
    """Purchase rate points lost at 2.5x the price, price-conscious twins (sensitivities.price > 0) against the
    rest. The rate is each twin's model P(purchase) (the same for every draw): at 2.5x nearly all buying goes
    for everyone, so the groups differ by about one point, below what 20 draws a twin can resolve
    (standard error about 2.5 points); the sampled drop is checked only for its sign across everyone."""
    conscious = np.asarray([sensitivities(p).price > 0 for p in personas])
    assert 5 <= conscious.sum() <= len(personas) - 5

    def rate(page):
        return np.asarray([row[0].details["probabilities"][PURCHASE] for row in sampled[page]])

    drop = rate("original") - rate("price_x2.5")
    assert (drop > 0).all()
    assert drop[conscious].mean() > drop[~conscious].mean(), (drop[conscious].mean(), drop[~conscious].mean())
    # Relative to what each twin would have bought: every price-conscious twin keeps a smaller share of its
    # buying than any other twin (the price term's weight is 1 + trait_weight * sensitivities.price).
    kept = rate("price_x2.5") / rate("original")
    assert kept[conscious].max() < kept[~conscious].min(), (kept[conscious], kept[~conscious])
    sampled_drop = _is(sampled["original"], PURCHASE).mean(axis=1) - _is(sampled["price_x2.5"], PURCHASE).mean(axis=1)
    assert sampled_drop.mean() > 0


def _cites_price(rationale: str) -> bool:
    return "$" in rationale or "price" in rationale.lower()


def test_twins_that_do_not_buy_at_the_higher_price_say_it_is_the_price(sampled):
    rates = {}
    for page in ("original", "price_x2.5"):
        not_buying = [d for row in sampled[page] for d in row if d.details["label"] != PURCHASE]
        rates[page] = sum(_cites_price(d.rationale) for d in not_buying) / len(not_buying)
    assert rates["price_x2.5"] >= 0.5 and rates["price_x2.5"] >= 2 * rates["original"], rates


def test_expensive_product_splits_twins_by_their_budget(pages, personas, brain):
    """Every price on the page scaled so the product costs $449.99 (the alternatives alike), most-likely mode.

    What the design implies (page_terms.appeal): against the page every term is a ratio (price to the other
    products, deal share, stars, reviews), so scaling all prices changes nothing but the budget term, which
    exists only when the price exceeds the twin's stated monthly budget and only lowers buying (and raises
    leaving and looking elsewhere). Hence, exactly: a twin without a budget or with one of at least $449.99
    decides as on the original page; nobody buys here who does not buy there; P(purchase) falls for every
    twin with a budget under the price. Then, as it turns out on these personas (asserted): buyers and
    non-buyers both exist, buyers' median budget is above non-buyers', no twin with a budget under $100 buys,
    and a twin who stops buying because of the price says so, naming its budget."""
    expensive = parse_page(all_priced(HTML, EXPENSIVE / 12.99))
    assert expensive.facts.focus_product.price == pytest.approx(EXPENSIVE)
    buyers, others = [], []
    for person in personas:
        budget = sensitivities(person).monthly_budget
        given = PredictionInput(history=HISTORY)
        cheap = brain.decide_sync(TwinContext.on_page(person, pages["original"], given))
        dear = brain.decide_sync(TwinContext.on_page(person, expensive, given))
        buys = dear.details["label"] == PURCHASE
        (buyers if buys else others).append(budget)
        p_cheap, p_dear = cheap.details["probabilities"][PURCHASE], dear.details["probabilities"][PURCHASE]
        if budget is None or budget >= EXPENSIVE:
            assert dear.details["label"] == cheap.details["label"], (person.id, budget)
            assert p_dear == pytest.approx(p_cheap, abs=1e-4), (person.id, budget)
        else:
            assert p_dear < p_cheap, (person.id, budget, p_cheap, p_dear)
        if buys:
            assert cheap.details["label"] == PURCHASE, (person.id, budget)
        elif cheap.details["label"] == PURCHASE:
            assert budget is not None and budget < EXPENSIVE
            assert "$449.99" in dear.rationale and f"${budget:,.0f}" in dear.rationale, dear.rationale
    assert buyers and others, (buyers, others)
    known_buyers = [b for b in buyers if b is not None]
    known_others = [b for b in others if b is not None]
    assert known_buyers and median(known_buyers) > median(known_others), (sorted(known_buyers), sorted(known_others))
    assert all(b >= 100 for b in known_buyers), sorted(known_buyers)


# ---- 3. rationales never contradict the action ------------------------------------------------------------


def _memories(person) -> list[Memory]:
    """Everything the twin could recall about itself, survey answers included (agreeing or not)."""
    return [
        Memory(id=f"{person.id}-{i}", persona_id=person.id, kind=kind, text=text, score=0.5)
        for i, (kind, text) in enumerate(persona_memory_texts(person))
    ]


@pytest.fixture(scope="module")
def many_decisions(personas, brain):
    """52 personas x 5 pages x 4 histories (empty included) x 3 draws, with their survey answers as memories."""
    observations = {
        "original": parse_page(HTML),
        "price_x2.5": parse_page(product_priced(HTML, 2.5)),
        "deal_50": parse_page(list_price(HTML, "$25.98")),
        "unavailable": parse_page(unavailable(HTML)),
        "search": parse_page(sample_page("search_results.html")),
    }
    histories = {"empty": [], "searched": HISTORY[:2], "product": HISTORY, "reviewing": REVIEWING}
    out = []
    for i, person in enumerate(personas):
        memories = _memories(person)
        for (page, observation), (history, steps), draw in itertools.product(
            observations.items(), histories.items(), range(3)
        ):
            decision = brain.decide_sync(
                TwinContext.on_page(
                    person,
                    observation,
                    PredictionInput(history=steps, options=PredictOptions(mode="sample", seed=_seed(i, draw))),
                    memories=memories,
                )
            )
            out.append((person, page, history, decision))
    return out


def test_rationales_never_say_the_opposite_of_the_action(many_decisions):
    labels = Counter(d.details["label"] for *_, d in many_decisions)
    assert labels[PURCHASE] >= 50 and labels["review"] >= 50 and labels[TERMINATE] >= 20, labels
    for person, page, history, decision in many_decisions:
        label, text = decision.details["label"], decision.rationale
        for feature, sign in CONTRADICTS.get(label, ()):
            phrase = _PERSONA_PHRASES[feature][0 if sign > 0 else 1]
            assert phrase not in text, (person.id, page, history, label, text)
        if label == PURCHASE:
            assert "I take my time before buying" not in text, text
            assert "disagree" not in text.lower(), text
        if label == "review":
            assert "I don't need many reviews" not in text, text
        # A survey answer is quoted only when agreed with.
        assert not re.search(r"\bI (?:strongly|somewhat) disagree\b|neither agree nor disagree", text), text


def test_first_step_rationale_says_what_the_twin_came_to_do(many_decisions):
    first = [(person, d) for person, _, history, d in many_decisions if history == "empty"]
    assert first
    purposes = Counter()
    for _person, decision in first:
        found = re.search(r"(I came to [^,.]+|I'm here to [^,.]+)", decision.rationale)
        assert found, decision.rationale
        purposes[found.group(1)] += 1
    assert len({d.rationale for _, d in first}) >= 52
    # What the person came for, not only the page's product or "browse": several distinct purposes.
    assert len(purposes) >= 5, purposes


def test_rationales_are_varied(many_decisions):
    texts = Counter(d.rationale for *_, d in many_decisions)
    assert len(texts) >= 400, len(texts)  # 3,120 decisions; the wording follows person, page, facts and memory
    assert texts.most_common(1)[0][1] <= 0.05 * len(many_decisions), texts.most_common(3)


def test_a_missing_review_count_counts_against_the_product_where_reviews_are_expected():
    """The product in view without a count reads as unreviewed where the shop shows reviews (another product's
    stars here) or in the dollar market OPeRA's twins know (every product there shows reviews), and as unknown on a
    shop in another market that shows no reviews anywhere: no term there."""
    focus = ProductFacts(title="Oak table", price=450.0, currency="GBP", buy_names=("main.add_to_basket",))
    rated_other = ProductFacts(title="Pine table", name="main.pine_table", price=399.0, rating=4.4, review_count=12)
    plain_other = ProductFacts(title="Pine table", name="main.pine_table", price=399.0)

    def reviews_driver(other: ProductFacts, currency: str = "GBP"):
        facts = PageFacts(
            products=(replace(focus, currency=currency), replace(other, currency=currency)),
            focus=0,
            reviews_shown=other.rating is not None,
            can_buy=True,
            currency=currency,
        )
        return next((d for d in page_effect(facts, NEUTRAL).drivers if d.kind == "reviews"), None)

    where_reviews_show = reviews_driver(rated_other)
    assert where_reviews_show is not None and where_reviews_show.value == 0.0 and where_reviews_show.shift < 0
    assert reviews_driver(plain_other) is None
    in_dollars = reviews_driver(plain_other, "USD")
    assert in_dollars is not None and in_dollars.value == 0.0 and in_dollars.shift < 0
