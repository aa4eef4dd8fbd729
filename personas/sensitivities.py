"""What a person cares about when they look at a product, on one -1..1 scale each, from their own survey.

The shopping statements of the OPeRA survey (Wang et al. 2025, arXiv 2506.05606) measure these directly;
eight of them are the Consumer Styles Inventory (Sproles & Kendall 1986, J. Consumer Affairs 20(2)), whose
constructs name the direction: a price-conscious shopper weighs price more, a perfectionist quality,
a brand-conscious one brands, an impulsive one decides without research, one confused by over-choice
suffers from many options. Agreement maps to +, disagreement to -, neutral or unanswered to 0
((answer - 3) / 2 on the 1..5 scale). The monthly online budget, as answered, is the twin's reference for
what a price means to them. Big Five traits are not mapped here: their links to shopping behaviour are
weak and not what the page terms rest on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from personas.persona import Persona

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True, slots=True)
class Sensitivities:
    """-1 (does not care, or the opposite) .. 1 (cares a lot); 0 when the person did not say."""

    price: float = 0.0  # "I look carefully for the best value"
    reviews: float = 0.0  # "I research / read reviews before buying"
    delivery: float = 0.0  # "I prioritise delivery speed and fee"
    quality: float = 0.0  # "high quality matters"
    brand: float = 0.0  # "expensive brands are my choice"
    brand_loyalty: float = 0.0  # "once I find a brand I stick with it"
    novelty: float = 0.0  # "I'd buy a new brand to see what it is like"
    ad_trust: float = 0.0  # "ads attract me"
    impulsiveness: float = 0.0  # "I shop quickly, first good-enough product"
    over_choice: float = 0.0  # "the more I learn, the harder to choose"
    prime: bool | None = None  # paid Amazon Prime: delivery fees rarely apply to them
    monthly_budget: float | None = None  # dollars a month online, as answered


NEUTRAL = Sensitivities()


def _agreement(persona: Persona, construct: str) -> float:
    answer = persona.preference(construct)
    return 0.0 if answer is None else (answer - 3) / 2.0


def parse_budget(text: str | None) -> float | None:
    """'About $200/month online' -> 200; a range ('$50-150') -> its midpoint; nothing usable -> None."""
    if not text:
        return None
    numbers = [float(n.replace(",", "")) for n in _NUMBER.findall(text)]
    numbers = [n for n in numbers if n > 0]
    if not numbers:
        return None
    return sum(numbers[:2]) / len(numbers[:2])


def sensitivities(persona: Persona | None) -> Sensitivities:
    """The person's sensitivities; NEUTRAL for a twin without a persona (the ablation)."""
    if persona is None:
        return NEUTRAL
    return Sensitivities(
        price=_agreement(persona, "price_consciousness"),
        reviews=_agreement(persona, "review_engagement"),
        delivery=_agreement(persona, "delivery"),
        quality=_agreement(persona, "quality"),
        brand=_agreement(persona, "brand_consciousness"),
        brand_loyalty=_agreement(persona, "brand_loyalty"),
        novelty=_agreement(persona, "novelty"),
        ad_trust=_agreement(persona, "ad_trust"),
        impulsiveness=_agreement(persona, "impulsiveness"),
        over_choice=_agreement(persona, "over_choice_confusion"),
        prime=persona.shopping.prime,
        monthly_budget=parse_budget(persona.shopping.monthly_spend),
    )
