"""A persona as a short numeric vector the behaviour model can weigh.

Only what every persona source can give is used, on scales that do not depend on the source: Big Five
traits on their 0..1 unit (IPIP-50 sums and reported levels both map there), the 12 shopping-preference
answers folded to agree (+1) / neutral (0) / disagree (-1) (OPeRA's personas.jsonl only keeps which
statements a person agreed or disagreed with, the user table keeps the full Likert answer), Prime, and
how often the person shops online. A missing answer is 0, the population's neutral point. A person
whose own sessions were calibrated on also gets an indicator of who they are (a shrunk personal effect).
"""

from __future__ import annotations

import re

from personas.persona import BIG_FIVE_TRAITS, PREFERENCE_CONSTRUCTS, Persona

PERSON_PREFIX = "person="
_USER_PREFIX = re.compile(r"[0-9a-f]{8}")

FREQUENCY_SCALE: tuple[tuple[str, float], ...] = (
    # Substrings of the OPeRA survey's answers, from rare to frequent, on a -1..1 scale.
    ("less than once a month", -1.0),
    ("once a month", -0.6),
    ("couple of weeks", -0.3),
    ("once to twice a week", 0.3),
    ("more than three times", 1.0),
    ("daily", 1.0),
)

PERSONA_FEATURES: tuple[str, ...] = (
    tuple(f"big5:{trait}" for trait in BIG_FIVE_TRAITS)
    + tuple(f"pref:{construct}" for construct in PREFERENCE_CONSTRUCTS)
    + ("prime", "frequency")
)


def frequency_score(answer: str | None) -> float:
    """The shopping-frequency answer on -1 (rarely) .. 1 (several times a week); 0 when unknown."""
    if not answer:
        return 0.0
    text = answer.lower()
    for key, value in FREQUENCY_SCALE:
        if key in text:
            return value
    return 0.0


def person_key(persona_id: str) -> str | None:
    """The 8-character OPeRA user prefix in a persona id (sessions and people join on it)."""
    match = _USER_PREFIX.search(persona_id.lower())
    return match.group(0) if match else None


def person_feature(features: dict[str, float]) -> str | None:
    """The `person=<prefix>` feature among `features`, if any: who this is, for per-person effects."""
    return next((name for name in features if name.startswith(PERSON_PREFIX)), None)


def is_persona_feature(name: str) -> bool:
    return name.startswith(("big5:", "pref:", PERSON_PREFIX)) or name in ("prime", "frequency")


def persona_vector(persona: Persona | None) -> dict[str, float]:
    """Feature name -> value for a persona; all zeros (the neutral point) when there is none."""
    if persona is None:
        return {}
    values: dict[str, float] = {}
    for trait in BIG_FIVE_TRAITS:
        unit = persona.big_five.unit(trait)
        if unit is not None:
            values[f"big5:{trait}"] = round(2.0 * (unit - 0.5), 4)
    for construct in PREFERENCE_CONSTRUCTS:
        answer = persona.preferences.get(construct)
        if answer is not None:
            values[f"pref:{construct}"] = 1.0 if answer >= 4 else (-1.0 if answer <= 2 else 0.0)
    if persona.shopping.prime is not None:
        values["prime"] = 1.0 if persona.shopping.prime else -1.0
    frequency = frequency_score(persona.shopping.frequency)
    if frequency:
        values["frequency"] = frequency
    key = person_key(persona.id)
    if key:
        # "This very person": weighs only for people whose sessions were in the calibration data,
        # whose own rates then carry over to their twin (a shrunk per-person effect).
        values[PERSON_PREFIX + key] = 1.0
    return {name: value for name, value in values.items() if value}
