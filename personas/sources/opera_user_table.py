"""Reader of the OPeRA user table: one row per real person with survey, raw survey and interview.

Columns: user_id, survey, raw_survey, interview_transcript, interview_transcript_processed (the JSON
columns are JSON strings in CSV; parquet and JSONL may hold them as objects already). The format is
OPeRA's (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0): `OPeRA_filtered/user/{train,test}/*.parquet`,
so a user with the full dataset can point `read_user_table` at that directory.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from personas.persona import BigFive, Demographics, Persona, ShoppingHabits
from personas.sources.records import checked_user_id, personas_from_records
from personas.sources.source_error import PersonaSourceError
from personas.survey import big_five, preferences_from_raw_survey, preferences_from_statements
from personas.table_files import TableReadError, read_table

SOURCE = "opera_user_table"
REQUIRED_COLUMNS = ("user_id",)
STATEMENTS_KEY = "To what extent do you agree with the following statements"

_DEMOGRAPHIC_FIELDS = {
    "gender": "Gender",
    "age": "Age",
    "city": "City",
    "education": "Education level",
    "living_situation": "Living situation",
    "income": "Yearly household income or stipend",
    "employment": "Employment status",
}
_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0"}


def _blank(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, float) and math.isnan(value))
        or (isinstance(value, str) and not value.strip())
    )


def _text(value: Any) -> str | None:
    """A free-text answer, stripped; blanks (and pandas NaN) become None."""
    return None if _blank(value) else str(value).strip()


def _json_object(value: Any, field: str) -> dict[str, Any]:
    """A JSON column as a dict: a JSON string, or already an object (parquet/JSONL); blank -> {}."""
    if _blank(value):
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str):
        raise PersonaSourceError(f"expected a JSON object, got {type(value).__name__}", field=field)
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as error:
        raise PersonaSourceError(f"malformed JSON ({error.msg}; character {error.pos})", field=field) from None
    if isinstance(parsed, str):  # double-encoded, as OPeRA's page_meta sometimes is
        return _json_object(parsed, field)
    if not isinstance(parsed, dict):
        raise PersonaSourceError(f"expected a JSON object, got a JSON {type(parsed).__name__}", field=field)
    return parsed


def _group(survey: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = survey.get(name)
    if _blank(value):
        return {}
    if not isinstance(value, Mapping):
        raise PersonaSourceError(f"expected an object, got {type(value).__name__}", field=f"survey.{name}")
    return dict(value)


def parse_prime(value: Any, field: str) -> bool | None:
    """'Yes' / 'No' (any case) -> True / False; blank -> None."""
    if isinstance(value, bool):
        return value
    text = _text(value)
    if text is None:
        return None
    if text.lower() in _YES:
        return True
    if text.lower() in _NO:
        return False
    raise PersonaSourceError(f"expected 'Yes' or 'No', got {value!r}", field=field)


def _preferences(shopping: Mapping[str, Any], raw_survey: Mapping[str, Any]) -> dict[str, int]:
    statements = shopping.get(STATEMENTS_KEY)
    field = f"survey.Shopping Preference.{STATEMENTS_KEY}"
    if not _blank(statements) and not isinstance(statements, Mapping):
        raise PersonaSourceError(f"expected an object, got {type(statements).__name__}", field=field)
    try:
        if statements:
            return preferences_from_statements(statements)
        return preferences_from_raw_survey(raw_survey)
    except ValueError as error:
        raise PersonaSourceError(str(error), field=field if statements else "raw_survey") from None


def _big_five(personality: Mapping[str, Any], raw_survey: Mapping[str, Any]) -> BigFive:
    levels = personality.get("Big Five Scores")
    if not _blank(levels) and not isinstance(levels, Mapping):
        raise PersonaSourceError(
            f"expected an object, got {type(levels).__name__}", field="survey.Personality.Big Five Scores"
        )
    try:
        return big_five(raw_survey, levels or {})
    except ValueError as error:
        field = "raw_survey" if raw_survey else "survey.Personality.Big Five Scores"
        raise PersonaSourceError(str(error), field=field) from None


def persona_from_user_row(row: Mapping[str, Any]) -> Persona:
    """One user-table row -> Persona (IPIP-50 Big Five from raw_survey when answered, else reported levels)."""
    user_id = checked_user_id(_text(row.get("user_id")))

    survey = _json_object(row.get("survey"), "survey")
    raw_survey = _json_object(row.get("raw_survey"), "raw_survey")
    demographic = _group(survey, "Demographic Information")
    shopping = _group(survey, "Shopping Preference")
    personality = _group(survey, "Personality")
    mbti = _text(personality.get("MBTI personality type"))

    return Persona(
        id=user_id,
        source=SOURCE,
        demographics=Demographics(
            **{ours: _text(demographic.get(theirs)) for ours, theirs in _DEMOGRAPHIC_FIELDS.items()}
        ),
        shopping=ShoppingHabits(
            frequency=_text(shopping.get("Online shopping frequency")),
            monthly_spend=_text(shopping.get("Monthly online shopping spend $")),
            prime=parse_prime(
                shopping.get("Amazon Prime membership"), "survey.Shopping Preference.Amazon Prime membership"
            ),
        ),
        preferences=_preferences(shopping, raw_survey),
        big_five=_big_five(personality, raw_survey),
        mbti=mbti.upper() if mbti else None,
        self_description=_text(_group(survey, "Self Description").get("Two sentence description")),
        interview_summary=_text(row.get("interview_transcript_processed")),
        transcript=_text(row.get("interview_transcript")),
    )


# ---- files ---------------------------------------------------------------------------------------


def _rows(path: Path) -> Iterator[tuple[Path, str, Mapping[str, Any]]]:
    """(file, where in it, row); the user_id column is checked in every file that has a header."""
    suffix = path.suffix.lower()
    if not (path.is_dir() or suffix in (".csv", ".jsonl", ".parquet")):
        raise PersonaSourceError(
            f"a user table must be .csv, .jsonl, .parquet or a directory of parquet, not {suffix!r}", path=path
        )
    try:
        for part in read_table(path):
            missing = [c for c in REQUIRED_COLUMNS if part.columns is not None and c not in part.columns]
            if missing:
                raise PersonaSourceError(
                    f"missing column(s) {missing}; found {list(part.columns or ())}",
                    path=part.path,
                    location="header" if part.path.suffix.lower() == ".csv" else None,
                    field=missing[0],
                )
            for location, row in part.rows:
                yield part.path, location, row
    except TableReadError as error:
        raise PersonaSourceError.from_table(error) from None


def read_user_table(path: str | Path) -> list[Persona]:
    """Every row of an OPeRA user table. A user seen twice (e.g. in train and test) is kept once if identical."""
    path = Path(path)
    if not path.exists():
        raise PersonaSourceError("no such file or directory", path=path)
    return personas_from_records(_rows(path), persona_from_user_row, id_field="user_id", identical_repeats=True)
