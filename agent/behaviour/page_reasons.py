"""The page facts that drove a decision, in the twin's own words, and what the twin came to do.

A fact is cited only when it is among the decision's top drivers (page_terms.Driver) and moved it by at
least CITE_THRESHOLD in log-odds: at an ordinary price a twin that does not buy rarely mentions the
price; at a high one it does. Wording varies with the person and the page (a stable choice among
phrasings, so the same twin on the same page says the same thing).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

from agent.behaviour.labels import PURCHASE, TERMINATE
from agent.behaviour.page_terms import LOOK_ELSEWHERE, Driver
from agent.page.money import format_money
from personas.sensitivities import Sensitivities

CITE_THRESHOLD = 0.3
MAX_CITED = 2

_AGAINST: dict[str, tuple[str, ...]] = {
    "price_vs_budget": (
        "{value} is far more than the {reference} a month I usually spend online",
        "{value} is well over what I spend online in a month (about {reference})",
    ),
    "list_price_vs_budget": (
        "prices here (around {value}) are far more than the {reference} a month I usually spend online",
        "what's on this page (around {value}) is over my usual {reference} a month online",
    ),
    "price_vs_page": (
        "{value} is more than similar items here (around {reference})",
        "at {value} it costs more than the others on the page, which sit around {reference}",
    ),
    "rating": (
        "{value:.1f} stars is lower than I'd like to see (around {reference:.1f})",
        "a {value:.1f}-star rating doesn't inspire confidence",
    ),
    "reviews": ("it has only {count} to go on", "there's hardly anyone vouching for it ({count})"),
    "no_reviews": ("there are no reviews to go on", "nobody has reviewed it yet"),
    "delivery_fee": ("delivery costs {value} on top", "there's a {value} delivery fee"),
    "delivery_days": ("it won't arrive for {days} days", "delivery takes {days} days"),
    "options": (
        "there are {count_plain} options and that many choices make it harder for me",
        "{count_plain} options is more than I want to sort through",
    ),
    "unavailable": ("it's currently unavailable", "it's out of stock"),
    "sponsored": ("it's a sponsored listing",),
}
_FOR: dict[str, tuple[str, ...]] = {
    "price_vs_page": (
        "at {value} it's cheaper than similar items here (around {reference})",
        "{value} is a good price next to the others on the page",
    ),
    "deal": ("it's {percent}% off the list price of {reference}", "there's a {percent}% discount"),
    "rating": ("it has {value:.1f} stars", "people rate it {value:.1f} out of 5"),
    "reviews": ("{count} back it up", "it has {count}"),
    "delivery_days": ("it arrives in {days} day{plural}",),
    "sponsored": ("it's one of the featured picks",),
}
_TRAIT_WORDS: dict[str, tuple[str, str]] = {  # sensitivity -> (cares, does not care)
    "price": ("I always look for the best value", "price isn't my main concern"),
    "reviews": ("I rely on what other buyers say", "I don't need many reviews to decide"),
    "delivery": ("fast, cheap delivery matters to me", "delivery doesn't worry me"),
    "over_choice": ("too many choices make it harder for me", "lots of options don't bother me"),
    "ad_trust": ("sponsored picks catch my eye", "I ignore sponsored listings"),
}


def _money(value: float | None, currency: str | None = None) -> str:
    return "" if value is None else format_money(value, currency, decimals=None)


def _choose(options: Sequence[str], salt: str) -> str:
    return options[zlib.crc32(salt.encode()) % len(options)]


def fact_phrase(driver: Driver, supports: bool, salt: str) -> str | None:
    """One page fact in words, as speaking for buying (`supports`) or against it; None for a fact without words."""
    table = _FOR if supports else _AGAINST
    kind = "no_reviews" if driver.kind == "reviews" and not driver.value and not supports else driver.kind
    options = table.get(kind)
    if not options:
        return None
    value, reference = driver.value, driver.reference
    money = driver.kind in ("price_vs_budget", "list_price_vs_budget", "price_vs_page", "delivery_fee")
    budget = driver.kind in ("price_vs_budget", "list_price_vs_budget")
    count = int(value) if value is not None and math.isfinite(value) else 0
    shown = _money(value, driver.currency)
    if budget and driver.note and " ≈ " in driver.note:  # converted: say at which rate
        dollars, _, rate = driver.note.split(" ≈ ", 1)[1].partition(" (")
        shown += f" (about {dollars} at the {rate.rstrip(')')})" if rate else f" (about {dollars})"
    return _choose(options, salt + kind).format(
        value=shown if money else (value if value is not None else 0.0),
        reference=_money(reference, None if budget else driver.currency)
        if money or driver.kind == "deal"
        else (reference if reference is not None else 0.0),
        count=("no reviews" if count == 0 else f"{count:,} review{'s' if count != 1 else ''}"),
        count_plain=count,
        days=count,
        plural="" if count == 1 else "s",
        percent=round(100 * (value or 0.0)),
    )


def cited_drivers(label: str, drivers: Sequence[Driver]) -> list[tuple[Driver, bool]]:
    """The page drivers worth citing for this label, strongest first, each with whether it speaks for buying."""
    if label == PURCHASE:
        chosen = sorted((d for d in drivers if d.shift >= CITE_THRESHOLD), key=lambda d: -d.shift)
        return [(d, True) for d in chosen[:MAX_CITED]]
    if label == TERMINATE or label in LOOK_ELSEWHERE:
        chosen = sorted((d for d in drivers if d.shift <= -CITE_THRESHOLD), key=lambda d: d.shift)
        return [(d, False) for d in chosen[:MAX_CITED]]
    if label == "review":
        chosen = [d for d in drivers if d.kind in ("reviews", "rating") and abs(d.shift) >= CITE_THRESHOLD]
        return [(d, d.shift > 0) for d in chosen[:1]]
    return []


def page_reasons(label: str, drivers: Sequence[Driver], sens: Sensitivities, salt: str) -> tuple[list[str], str | None]:
    """(phrases for the cited facts, a trait of this person that explains why they weigh them, or None)."""
    cited = cited_drivers(label, drivers)
    phrases = [p for d, supports in cited if (p := fact_phrase(d, supports, salt))]
    trait = None
    for driver, _ in cited:
        level = getattr(sens, driver.trait, 0.0) if driver.trait else 0.0
        if driver.trait in _TRAIT_WORDS and abs(level) >= 0.25:
            cares, does_not = _TRAIT_WORDS[driver.trait]
            # A trait is named only when it explains the decision: caring about what moved it.
            trait = cares if level > 0 else None
            if level < 0 and label == PURCHASE and driver.shift > 0:
                trait = None
            elif level < 0:
                trait = does_not if label == PURCHASE else None
            if trait:
                break
    return phrases, trait


_WAYS: dict[str, str] = {  # sensitivity -> how this person goes about it, when they agree with it
    "price": "find the best value",
    "reviews": "see what other buyers say",
    "impulsiveness": "pick something good enough quickly",
    "delivery": "get it delivered fast",
    "quality": "find something of good quality",
    "brand": "find a brand worth paying for",
    "novelty": "try something new",
}


def purpose(
    interests: Sequence[str],
    page_thing: str | None,
    task: str | None = None,
    sens: Sensitivities | None = None,
    salt: str = "",
) -> str:
    """What the twin came to do, for a session's first step: the task given, else what the person said they
    shop for, else the thing in view; with how this person goes about it (a survey answer they agreed with,
    one of their strongest, chosen stably per person)."""
    if task:
        return f"I'm here to {task.rstrip('.')}" if not task.lower().startswith(("i ", "i'")) else task.rstrip(".")
    what = (
        f"I came to look for {interests[0]}"
        if interests
        else f"I came to look at {page_thing}"
        if page_thing
        else "I came to browse"
    )
    levels = {name: getattr(sens, name) for name in _WAYS} if sens is not None else {}
    top = max(levels.values(), default=0.0)
    if top <= 0:
        return what
    strongest = sorted(name for name, level in levels.items() if level == top)
    return f"{what} and {_WAYS[_choose(strongest, salt + 'way')]}"
