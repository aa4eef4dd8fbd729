"""How what the page shows moves a twin's next action: interpretable log-odds terms on top of the sequence model.

The calibrated sequence model says what people like this do next at this point of a session; these terms
say how the page in front of them changes that. Every term compares a visible fact with a reference the
twin has (the other products on the same page, the list price, the person's own monthly budget, what a
shopper expects when the page gives nothing to compare with) and is weighted by what this person cares
about (personas/sensitivities.py). A product's appeal is the sum of its terms; on a product page the
appeal of the product in view shifts buying (up or down) and, when it is unappealing, leaving and looking
elsewhere; among several products it is the element-choice feature `appeal` (which product to open).
Every coefficient is a named prior from published research or a stated assumption
(docs/behaviour_model.md, "Page terms"); `twinsim calibrate` fits them when given pages
(agent/calibration/page_term_fitting.py).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from statistics import median

import numpy as np

from agent.behaviour.alternatives import alternatives
from agent.behaviour.labels import INPUT, LABEL_INDEX, LABELS, PURCHASE, TERMINATE
from agent.page.exchange_rates import rate_date, to_usd
from agent.page.facts_model import PageFacts, ProductFacts
from personas.sensitivities import Sensitivities

LOOK_ELSEWHERE: tuple[str, ...] = ("product_link", "search", INPUT)
_PURCHASE, _TERMINATE = LABEL_INDEX[PURCHASE], LABEL_INDEX[TERMINATE]
_LOOK = np.asarray([LABEL_INDEX[label] for label in LOOK_ELSEWHERE])


@dataclass(frozen=True)
class PageTermCoefficients:
    """Priors (see docs/behaviour_model.md for each source); a fitted file replaces them."""

    price_elasticity: float = 2.62  # Bijmolt, van Heerde & Pieters 2005: mean of 1,851 price elasticities
    trait_weight: float = 0.5  # assumption: a fully agreeing (+1) person weighs a fact 1.5x, disagreeing 0.5x
    deal: float = 1.0  # assumption: log-odds per 100% off a shown list price
    rating_elasticity: float = 0.417  # You, Vadakkepatt & Joshi 2015: eWOM valence elasticity
    volume_elasticity: float = 0.236  # You, Vadakkepatt & Joshi 2015: eWOM volume elasticity
    first_reviews: float = 1.31  # Spiegel Research Center 2017: 5 reviews vs none, purchase likelihood +270% (log 3.7)
    first_reviews_count: float = 5.0  # ... "the first five reviews drive the bulk of this increase"
    expected_rating: float = 4.35  # assumption: the middle of the 4.0-4.7 range where purchases peak (Spiegel 2017)
    typical_reviews: float = 1000.0  # assumption: the review count a shopper expects when nothing else is shown
    delivery_days_elasticity: float = 0.1  # Fisher, Gallino & Xu: 1.5% sales per business day from a 7-day baseline
    expected_days_prime: float = 2.0  # assumption: Prime's promised two-day delivery
    expected_days: float = 5.0  # assumption: what a shopper without Prime expects
    stockout_leave: float = 0.6  # Gruen, Corsten & Bharadwaj 2002: 31% buy elsewhere + 9% do not buy vs 26% substitute
    scarcity: float = 0.0  # published effects of "only N left" disagree in sign: no prior effect
    ad_label: float = 0.24  # assumption scaled to Edelman & Gilchrist 2012 (label wording moved ad clicks 25-27%)
    over_choice: float = 0.3  # assumption; Scheibehenne et al. 2010: mean effect near zero, so only for the confused
    reference_options: float = 6.0  # Iyengar & Lepper 2000's small assortment
    leave_per_appeal: float = 0.5  # assumption: log-odds of leaving per unit of unappeal
    look_per_appeal: float = 0.5  # assumption: log-odds of looking elsewhere per unit of unappeal
    read_reviews: float = 0.5  # assumption: review-engaged people open the reviews more when a page shows them

    def to_json(self) -> dict[str, float]:
        return {k: round(float(v), 5) for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: dict | None) -> PageTermCoefficients:
        known = {f.name for f in fields(cls)}
        return replace(cls(), **{k: float(v) for k, v in (data or {}).items() if k in known})


PRIORS = PageTermCoefficients()


@dataclass(frozen=True, slots=True)
class Driver:
    """One fact that moved the decision: what it is, its value, the reference it was held against, and by how much."""

    kind: (
        str  # price_vs_budget, price_vs_page, deal, rating, reviews, delivery_fee, delivery_days, unavailable, options
    )
    shift: float  # log-odds contribution to buying this product (negative: against)
    value: float | None
    reference: float | None
    trait: str | None = None  # the sensitivity that weighed it (price, reviews, delivery, over_choice)
    currency: str | None = None  # of `value` when it is money (ISO 4217); the budget `reference` is in US dollars
    note: str | None = None  # how a price was held against the budget: the conversion, or why it was not


# The market OPeRA's twins shop in: amazon.com, prices in US dollars (or none shown, as on OPeRA's pages). Their
# expectations of a product's review volume (`typical_reviews`) were formed there.
HOME_CURRENCIES: frozenset[str | None] = frozenset({None, "USD"})
OTHER_MARKET_REVIEWS = (
    "priced in {currency}, outside the US-dollar market where the twin's expectation of {typical:,.0f} reviews "
    "was formed: held against the first {bar:g} reviews (Spiegel 2017), not that expectation"
)


@dataclass(frozen=True)
class References:
    """What the twin holds the product against: the other products on the same page, its own budget and expectations."""

    price: float | None
    rating: float | None
    reviews: float | None
    days: float | None
    expected: frozenset[str] = frozenset()  # references that are the twin's expectation, not the page's products
    reviews_note: str | None = None  # why the expected review count is not `typical_reviews`


def page_references(
    facts: PageFacts,
    sens: Sensitivities,
    coef: PageTermCoefficients,
    exclude: int | None = None,
    currency: str | None = None,
) -> References:
    """Medians over the page's products (but `exclude`), with the twin's expectations where the page has too few.
    Prices are compared within one currency: products priced in another than `currency` are no price reference.

    The expected review count is a marketplace's norm: a twin from OPeRA (amazon.com shoppers) expects about
    `typical_reviews` there. A page priced in another currency is another market whose norm the twin does not
    know (review volumes differ by orders of magnitude between shops), so with no other product on the page to
    learn it from, the bar is the first reviews, which drive the bulk of the effect of reviews (Spiegel 2017):
    fewer than those still count against the product, a shop-sized count does not."""
    others = [p for i, p in enumerate(facts.products) if i != exclude]
    # The product in view is held against its alternatives on the page, not the accessories shown beside it.
    against = alternatives(facts.products[exclude], others) if exclude is not None else others
    priced = [p for p in against if currency is None or p.currency is None or p.currency == currency]

    def middle(values: list[float]) -> float | None:
        return float(median(values)) if len(values) >= 2 else None

    prices = [p.price + (p.delivery_fee or 0.0) for p in priced if p.price]
    ratings = [p.rating for p in others if p.rating]
    counts = [float(p.review_count) for p in others if p.review_count is not None]
    days = [float(p.delivery_days) for p in others if p.delivery_days is not None]
    expected_days = coef.expected_days_prime if sens.prime else coef.expected_days
    rating, reviews, day = middle(ratings), middle(counts), middle(days)
    expected = frozenset(
        name for name, value in (("rating", rating), ("reviews", reviews), ("days", day)) if value is None
    )
    home = currency in HOME_CURRENCIES
    expected_reviews = coef.typical_reviews if home else min(coef.typical_reviews, coef.first_reviews_count)
    return References(
        price=middle(prices),
        rating=rating if rating is not None else coef.expected_rating,
        reviews=reviews if reviews is not None else expected_reviews,
        days=day if day is not None else expected_days,
        expected=expected,
        reviews_note=None
        if home or reviews is not None
        else OTHER_MARKET_REVIEWS.format(currency=currency, typical=coef.typical_reviews, bar=expected_reviews),
    )


def _weight(coef: PageTermCoefficients, sensitivity: float) -> float:
    return max(0.0, 1.0 + coef.trait_weight * sensitivity)


def social_proof(count: float, coef: PageTermCoefficients) -> float:
    """Log purchase odds from a review count: steep over the first few reviews, then the volume elasticity."""
    first = coef.first_reviews_count
    return coef.first_reviews * min(count, first) / first + coef.volume_elasticity * math.log(max(count, first) / first)


def appeal(
    product: ProductFacts, refs: References, sens: Sensitivities, coef: PageTermCoefficients, reviews_expected: bool
) -> list[Driver]:
    """The terms of one product for this person. `reviews_expected`: the page is where reviews would show (the
    product in view, on a page that shows ratings or reviews for some product, or in the dollar market where
    OPeRA's twins learned that every product shows them), so a product without any reads as having none. A shop
    in another market that shows no reviews at all tells nothing about this product's: no term."""
    drivers: list[Driver] = []
    price_weight = coef.price_elasticity * _weight(coef, sens.price)
    if product.price:
        total = product.price + (product.delivery_fee or 0.0)
        if refs.price:
            drivers.append(
                Driver("price_vs_page", -price_weight * math.log(total / refs.price), total, refs.price, "price")
            )
        if sens.monthly_budget:
            drivers.extend(_against_budget(total, product.currency, sens.monthly_budget, price_weight))
        if product.delivery_fee:
            extra = (
                coef.price_elasticity * coef.trait_weight * max(0.0, sens.delivery) * math.log(total / product.price)
            )
            drivers.append(Driver("delivery_fee", -extra, product.delivery_fee, 0.0, "delivery"))
    if product.discount:
        drivers.append(
            Driver(
                "deal",
                coef.deal * _weight(coef, sens.price) * product.discount,
                product.discount,
                product.list_price,
                "price",
            )
        )

    # Against the twin's own expectation (no other product on the page to compare with) only a shortfall
    # counts: beyond the first reviews more barely moves purchases (Spiegel 2017), and a shopper's
    # expectation is a bar to clear, not a scale to climb.
    def held(shift: float, reference: str) -> float:
        return min(0.0, shift) if reference in refs.expected else shift

    review_weight = _weight(coef, sens.reviews - 0.5 * sens.impulsiveness)
    if product.rating and refs.rating:
        shift = held(coef.rating_elasticity * review_weight * math.log(product.rating / refs.rating), "rating")
        drivers.append(Driver("rating", shift, product.rating, refs.rating, "reviews"))
    count = product.review_count if product.review_count is not None else (0 if reviews_expected else None)
    if count is not None and refs.reviews is not None:
        shift = held(review_weight * (social_proof(float(count), coef) - social_proof(refs.reviews, coef)), "reviews")
        drivers.append(Driver("reviews", shift, float(count), refs.reviews, "reviews", note=refs.reviews_note))
    if product.delivery_days is not None and refs.days is not None:
        shift = (
            -coef.delivery_days_elasticity
            * _weight(coef, sens.delivery)
            * math.log((product.delivery_days + 1) / (refs.days + 1))
        )
        drivers.append(
            Driver("delivery_days", held(shift, "days"), float(product.delivery_days), refs.days, "delivery")
        )
    if product.stock_left is not None and coef.scarcity:
        drivers.append(Driver("scarcity", coef.scarcity, float(product.stock_left), None))
    if product.sponsored and coef.ad_label and sens.ad_trust:
        drivers.append(Driver("sponsored", coef.ad_label * sens.ad_trust, 1.0, None, "ad_trust"))
    if product.option_count > coef.reference_options and sens.over_choice > 0:
        shift = -coef.over_choice * sens.over_choice * math.log(product.option_count / coef.reference_options)
        drivers.append(Driver("options", shift, float(product.option_count), coef.reference_options, "over_choice"))
    return drivers


def _against_budget(total: float, currency: str | None, budget: float, weight: float) -> list[Driver]:
    """The price held against the person's monthly budget, which OPeRA's survey states in US dollars: a price in
    another currency is converted with the shipped, dated table (agent/page/exchange_rates.py) and the driver says
    how; a currency the table does not hold skips the comparison and the driver says why (its shift is 0). A price
    whose currency the page does not show is read as dollars, as OPeRA's pages are."""
    if currency in (None, "USD"):
        return (
            [Driver("price_vs_budget", -weight * math.log(total / budget), total, budget, "price", currency)]
            if total > budget
            else []
        )
    converted = to_usd(total, currency)
    if converted is None:
        return [
            Driver(
                "budget_not_compared",
                0.0,
                total,
                budget,
                "price",
                currency,
                f"no {currency} exchange rate in the table of {rate_date()}: the price is not held against the budget",
            )
        ]
    if converted.usd <= budget:
        return []
    return [
        Driver(
            "price_vs_budget",
            -weight * math.log(converted.usd / budget),
            total,
            budget,
            "price",
            currency,
            converted.describe(),
        )
    ]


@dataclass(frozen=True)
class PageEffect:
    """The page's shifts for one decision: log-odds per label, the product in view's drivers, and each
    product's appeal relative to the page (for the element choice), keyed by candidate name."""

    shifts: dict[str, float]
    drivers: tuple[Driver, ...]
    appeal_by_name: dict[str, float]
    unavailable_names: frozenset[str]
    focus_unavailable: bool = False


NO_EFFECT = PageEffect({}, (), {}, frozenset())


def page_effect(facts: PageFacts, sens: Sensitivities, coef: PageTermCoefficients = PRIORS) -> PageEffect:
    """The page's terms for this person (NO_EFFECT on a page that shows no product). The product in view is
    held against the other products on the page; products in a list against the whole list."""
    if not facts.products:
        return NO_EFFECT
    focus = facts.focus
    list_refs = page_references(facts, sens, coef, exclude=None, currency=facts.currency)
    terms = [
        appeal(
            product,
            page_references(facts, sens, coef, exclude=i, currency=product.currency) if i == focus else list_refs,
            sens,
            coef,
            reviews_expected=i == focus and (facts.reviews_shown or facts.currency in HOME_CURRENCIES),
        )
        for i, product in enumerate(facts.products)
    ]
    totals = [sum(d.shift for d in drivers) for drivers in terms]
    unavailable = frozenset(
        name
        for product in facts.products
        if product.availability == "unavailable"
        for name in (*product.buy_names, *([product.name] if product.name else []))
    )
    mean_total = sum(totals) / len(totals)
    appeal_by_name = {
        name: total - mean_total
        for product, total in zip(facts.products, totals, strict=True)
        for name in (product.name, *product.buy_names)
        if name
    }
    if focus is not None:
        total, drivers = totals[focus], tuple(terms[focus])
    else:
        # A list: held against each other its products cancel out; what is left is how the page as a
        # whole meets this person's budget and expectations. Only that is a reason worth citing for the page.
        total = mean_total
        over_budget = [d for product_terms in terms for d in product_terms if d.kind == "price_vs_budget"]
        prices = [p.price for p in facts.products if p.price and p.currency == facts.currency]
        typical = float(median(prices)) if prices else 0.0
        converted = to_usd(typical, facts.currency) if facts.currency not in (None, "USD") else None
        drivers = (
            (
                Driver(
                    "list_price_vs_budget",
                    sum(d.shift for d in over_budget) / len(terms),
                    typical,
                    sens.monthly_budget,
                    "price",
                    facts.currency,
                    converted.describe() if converted else None,
                ),
            )
            if over_budget and prices
            else ()
        )
    unappeal = max(0.0, -total)
    shifts = {PURCHASE: total, TERMINATE: coef.leave_per_appeal * unappeal}
    shifts.update(dict.fromkeys(LOOK_ELSEWHERE, coef.look_per_appeal * unappeal))
    if facts.reviews_shown and sens.reviews:
        shifts["review"] = coef.read_reviews * sens.reviews
    if focus is not None and facts.products[focus].availability == "unavailable":
        # The rest of what the page says still weighs; apply_effect then moves the buying it would have had.
        drivers = (Driver("unavailable", -math.inf, None, None), *drivers)
        return PageEffect(shifts, drivers, appeal_by_name, unavailable, focus_unavailable=True)
    return PageEffect(shifts, drivers, appeal_by_name, unavailable)


def apply_effect(probabilities: np.ndarray, effect: PageEffect, coef: PageTermCoefficients = PRIORS) -> np.ndarray:
    """P(next label) after the page's terms (labels.LABELS order). An unavailable product in view cannot be
    bought: what would have gone to buying it (given everything else the page says) goes to leaving
    (coef.stockout_leave) and to looking elsewhere."""
    if not effect.shifts:
        return probabilities
    adjusted = probabilities * np.exp(
        np.asarray([v if math.isfinite(v := effect.shifts.get(label, 0.0)) else 0.0 for label in LABELS])
    )
    adjusted /= adjusted.sum()
    if effect.focus_unavailable:
        freed = adjusted[_PURCHASE]
        adjusted[_PURCHASE] = 0.0
        elsewhere = adjusted[_LOOK]
        adjusted[_TERMINATE] += coef.stockout_leave * freed
        if elsewhere.sum() > 0:
            adjusted[_LOOK] += (1.0 - coef.stockout_leave) * freed * elsewhere / elsewhere.sum()
        else:
            adjusted[_TERMINATE] += (1.0 - coef.stockout_leave) * freed
    return adjusted / adjusted.sum()
