"""Reader of OPeRA's personas.jsonl: one digest line per user (all 52 of the filtered release).

The digest is derived from the OPeRA user table (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0). It
keeps reported Big Five levels (no raw items) and, instead of the 12 Likert answers, short labels of
the statements a user agreed or disagreed with. Those labels become preference scores by the rule in
LABEL_CONSTRUCTS and docs/personas.md: agreed -> 4, disagreed -> 2, mapped but in neither list -> 3,
listed both ways (a label, or two labels of one construct) -> 3; the three constructs the digest never
labels (seasonality, novelty, recreational) stay unknown. The interview excerpt (cut at 400
characters) is kept up to its last complete sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from personas.persona import BigFive, Demographics, Persona, ShoppingHabits
from personas.sources.opera_user_table import parse_prime
from personas.sources.records import checked_user_id, jsonl_records, personas_from_records
from personas.sources.source_error import PersonaSourceError
from personas.survey import levels_from_survey

SOURCE = "opera_personas_jsonl"

# Label in agrees_with / disagrees_with -> construct (labels as they occur in the real file).
LABEL_CONSTRUCTS: dict[str, str] = {
    "reviews": "review_engagement",
    "quality": "quality",
    "best value": "price_consciousness",
    "value": "price_consciousness",
    "delivery speed": "delivery",
    "ads / sponsored": "ad_trust",
    "speed / good-enough": "impulsiveness",
    "premium brands": "brand_consciousness",
    "brand loyalty": "brand_loyalty",
    "unclear listings": "over_choice_confusion",
}
AGREED, NEUTRAL, DISAGREED = 4, 3, 2

_DEMOGRAPHIC_FIELDS = ("age", "gender", "city", "income", "education", "employment")
# "About $200/month online" -> "200" (the survey's own answer, as the user table stores it).
_BUDGET_RE = re.compile(r"^\s*about\s+\$*\s*(?P<amount>.+?)\s*/\s*month(\s+online)?\s*$", re.IGNORECASE)
_UNSPECIFIED = {"", "not specified", "none", "n/a"}


def _text(record: Mapping[str, Any], field: str) -> str | None:
    value = record.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise PersonaSourceError(f"expected text, got {type(value).__name__}", field=field)
    return value.strip() or None


def monthly_spend(value: str | None) -> str | None:
    """'About $200/month online' -> '200'; 'Not specified' -> None; anything else kept as written."""
    if value is None or value.strip().lower() in _UNSPECIFIED:
        return None
    match = _BUDGET_RE.match(value)
    return match.group("amount") if match else value.strip()


def complete_sentences(excerpt: str | None) -> str | None:
    """The excerpt is cut at 400 characters mid-word; keep it up to its last complete sentence."""
    if not excerpt:
        return None
    if excerpt.rstrip().endswith((".", "!", "?")):
        return excerpt.strip()
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s)", excerpt)]
    return excerpt[: ends[-1]].strip() if ends else excerpt.strip()


def _labels(record: Mapping[str, Any], field: str) -> set[str]:
    value = record.get(field) or []
    if not isinstance(value, list) or not all(isinstance(label, str) for label in value):
        raise PersonaSourceError("expected a list of statement labels", field=field)
    constructs: set[str] = set()
    for label in value:
        key = " ".join(label.lower().split())
        if key not in LABEL_CONSTRUCTS:
            raise PersonaSourceError(
                f"unknown statement label {label!r}; expected one of {sorted(LABEL_CONSTRUCTS)}", field=field
            )
        constructs.add(LABEL_CONSTRUCTS[key])
    return constructs


def preferences_from_labels(record: Mapping[str, Any]) -> dict[str, int]:
    """agrees_with / disagrees_with -> {construct: 4 | 3 | 2} for the nine labelled constructs."""
    agreed, disagreed = _labels(record, "agrees_with"), _labels(record, "disagrees_with")
    preferences: dict[str, int] = {}
    for construct in dict.fromkeys(LABEL_CONSTRUCTS.values()):
        if construct in agreed and construct not in disagreed:
            preferences[construct] = AGREED
        elif construct in disagreed and construct not in agreed:
            preferences[construct] = DISAGREED
        else:
            preferences[construct] = NEUTRAL
    return preferences


def _big_five(record: Mapping[str, Any]) -> BigFive:
    levels = record.get("big_five_levels") or {}
    if not isinstance(levels, Mapping):
        raise PersonaSourceError("expected an object of trait -> level", field="big_five_levels")
    try:
        parsed = levels_from_survey(levels)
    except ValueError as error:
        raise PersonaSourceError(str(error), field="big_five_levels") from None
    return BigFive(levels=parsed, method="reported_levels" if parsed else "none")


def persona_from_jsonl_record(rec: Mapping[str, Any]) -> Persona:
    """One personas.jsonl line -> Persona (reported Big Five levels, label-derived preferences)."""
    user_id = checked_user_id(_text(rec, "user_id"))
    return Persona(
        id=user_id,
        source=SOURCE,
        demographics=Demographics(**{field: _text(rec, field) for field in _DEMOGRAPHIC_FIELDS}),
        shopping=ShoppingHabits(
            frequency=_text(rec, "shop_frequency"),
            monthly_spend=monthly_spend(_text(rec, "monthly_budget")),
            prime=parse_prime(rec.get("prime"), "prime"),
        ),
        preferences=preferences_from_labels(rec),
        big_five=_big_five(rec),
        self_description=_text(rec, "self_description"),
        interview_summary=complete_sentences(_text(rec, "interview_excerpt")),
    )


def read_personas_jsonl(path: str | Path) -> list[Persona]:
    """Every line of a personas.jsonl file; a malformed line names its line number and field."""
    path = Path(path)
    if not path.exists():
        raise PersonaSourceError("no such file", path=path)
    records = ((path, location, record) for location, record in jsonl_records(path))
    return personas_from_records(records, persona_from_jsonl_record, id_field="user_id")
