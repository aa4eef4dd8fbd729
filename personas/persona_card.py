"""Who a twin is, in the few facts a UX researcher reads first: one compact, JSON-ready card per persona.

Reports show it beside every twin (instead of a bare id) and exports carry it on every decision, so both read
the same card: demographics as answered, the Big Five on a 0..1 scale with its level, the shopping statements
the person agrees (4-5) and disagrees (1-2) with in the survey's own wording, and one sentence of their own words.
"""

from __future__ import annotations

import re

from personas.persona import BIG_FIVE_TRAITS, PREFERENCE_CONSTRUCTS, Persona
from personas.survey import SHOPPING_STATEMENTS

STATEMENT_OF: dict[str, str] = dict(zip(PREFERENCE_CONSTRUCTS, SHOPPING_STATEMENTS, strict=True))
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _level(unit: float) -> str:
    """The band a 0..1 trait value falls in, with the same cut points as the reported levels' midpoints."""
    if unit < 0.21:
        return "Extremely low"
    if unit < 0.4:
        return "Low"
    if unit < 0.6:
        return "Medium"
    if unit < 0.79:
        return "High"
    return "Extremely high"


def own_words(persona: Persona, max_chars: int = 220) -> str | None:
    """The first whole sentence the person wrote or said about themselves, verbatim (never paraphrased)."""
    for text in (persona.self_description, persona.interview_summary, persona.transcript):
        if not text or not text.strip():
            continue
        sentence = _SENTENCE.split(text.strip(), maxsplit=1)[0].strip()
        return sentence if len(sentence) <= max_chars else sentence[: max_chars - 1].rstrip() + "…"
    return None


def persona_card(persona: Persona) -> dict:
    """The card as plain JSON: every field is present (None or empty when the person did not answer)."""
    big_five = {}
    for trait in BIG_FIVE_TRAITS:
        unit = persona.big_five.unit(trait)
        if unit is not None:
            big_five[trait] = {"unit": round(unit, 3), "level": persona.big_five.levels.get(trait) or _level(unit)}
    answered = [(c, persona.preferences[c]) for c in PREFERENCE_CONSTRUCTS if c in persona.preferences]
    return {
        "id": persona.id,
        "name": persona.name,
        "demographics": persona.demographics.model_dump(exclude_none=True),
        "shopping": persona.shopping.model_dump(exclude_none=True),
        "big_five": big_five,
        "agrees_with": [STATEMENT_OF[c] for c, answer in answered if answer >= 4],
        "disagrees_with": [STATEMENT_OF[c] for c, answer in answered if answer <= 2],
        "own_words": own_words(persona),
    }


def card_traits(card: dict) -> dict[str, object]:
    """The card flattened to one row of scalar columns (exports, Parquet): demographics, shopping, Big Five units,
    and the number of statements agreed and disagreed with."""
    row: dict[str, object] = {f"persona_{k}": v for k, v in card.get("demographics", {}).items()}
    row.update({f"persona_{k}": v for k, v in card.get("shopping", {}).items()})
    row.update({f"big5_{trait}": value["unit"] for trait, value in card.get("big_five", {}).items()})
    row["agrees_with"] = " | ".join(card.get("agrees_with", []))
    row["disagrees_with"] = " | ".join(card.get("disagrees_with", []))
    return row
