"""Reader of hand-written personas (JSON or YAML): the Persona schema, with a few friendly spellings.

A file holds one persona object, a list of them, or {"personas": [...]}; a .jsonl file holds one per
line. Friendly input accepted on top of the schema (so people can write what they mean):
- preferences keyed by construct name in any case or spacing ("Review engagement"), valued 1..5 or
  by the survey's Likert words ("Somewhat agree");
- big_five as {levels: {...}}, {scores: {...}}, or a flat {trait: level or score}, traits in any case
  ("Emotional Stability", "openness" -> intellect), levels in any case; the method is filled in.
Everything is then validated by Persona, so an error names the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from personas.persona import Persona
from personas.sources.records import jsonl_records, personas_from_records
from personas.sources.source_error import PersonaSourceError
from personas.survey import parse_level, parse_likert, trait_name

SOURCE = "native"
IPIP_SUM_RANGE = (10.0, 50.0)


def _construct_key(label: str) -> str:
    """'Review engagement' -> 'review_engagement'; unknown names pass through for the schema to name."""
    return "_".join(str(label).lower().replace("-", " ").split())


def _preferences(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value  # let the schema say what is wrong
    preferences: dict[str, Any] = {}
    for label, answer in value.items():
        construct = _construct_key(label)
        if isinstance(answer, str):
            try:
                answer = parse_likert(answer)
            except ValueError as error:
                raise PersonaSourceError(str(error), field=f"preferences.{label}") from None
        if answer is not None:
            preferences[construct] = answer
    return preferences


def _traits(values: Any, field: str, parse: Callable[[Any], Any]) -> Any:
    if not isinstance(values, Mapping):
        return values
    traits: dict[str, Any] = {}
    for label, value in values.items():
        try:
            traits[trait_name(label)] = parse(value)
        except ValueError as error:
            raise PersonaSourceError(str(error), field=f"{field}.{label}") from None
    return {trait: value for trait, value in traits.items() if value is not None}


def _is_level(value: Any) -> bool:
    """'High' is a level; 32, 32.5 and '32' are scores."""
    return isinstance(value, str) and not value.strip().replace(".", "", 1).isdigit()


def _score(value: Any) -> Any:
    if isinstance(value, str) and not _is_level(value):
        value = float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        low, high = IPIP_SUM_RANGE
        if not low <= value <= high:
            raise ValueError(f"an IPIP-50 trait sum must be within {low:g}..{high:g}, got {value}")
    return value


def _big_five(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value
    structured = {"scores", "levels", "method", "dataset_sums"}
    if not set(value) & structured:  # flat {trait: level or score}
        levels = {k: v for k, v in value.items() if _is_level(v)}
        scores = {k: v for k, v in value.items() if not _is_level(v)}
        value = {"levels": levels, "scores": scores}
    big_five = dict(value)
    if "levels" in big_five:
        big_five["levels"] = _traits(big_five["levels"], "big_five.levels", parse_level)
    if "scores" in big_five:
        big_five["scores"] = _traits(big_five["scores"], "big_five.scores", _score)
    if "method" not in big_five:
        big_five["method"] = (
            "ipip50" if big_five.get("scores") else ("reported_levels" if big_five.get("levels") else "none")
        )
    return big_five


def normalise_native_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The friendly spellings turned into the schema's own (the input is not modified)."""
    normalised = dict(record)
    normalised.setdefault("source", SOURCE)
    if "preferences" in normalised:
        normalised["preferences"] = _preferences(normalised["preferences"])
    if "big_five" in normalised:
        normalised["big_five"] = _big_five(normalised["big_five"])
    return normalised


def native_persona(record: Mapping[str, Any]) -> Persona:
    """One native persona dict -> Persona; raises ValidationError (naming the field) when it does not fit."""
    return Persona.model_validate(normalise_native_record(record))


# ---- files ---------------------------------------------------------------------------------------


def read_native_records(path: str | Path) -> list[tuple[str, Mapping[str, Any]]]:
    """(location, record) for each persona in a JSON, YAML or JSONL file."""
    path = Path(path)
    if not path.exists():
        raise PersonaSourceError("no such file", path=path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return list(jsonl_records(path))
    text = path.read_text(encoding="utf-8-sig")
    try:
        document = json.loads(text) if suffix == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as error:
        raise PersonaSourceError(f"not valid JSON ({error.msg})", path=path, location=f"line {error.lineno}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        location = f"line {mark.line + 1}" if mark is not None else None
        raise PersonaSourceError(
            f"not valid YAML ({getattr(error, 'problem', None) or error})", path=path, location=location
        ) from None
    if isinstance(document, Mapping) and set(document) == {"personas"}:
        document = document["personas"]
    if isinstance(document, Mapping):
        return [("persona 1", document)]
    if isinstance(document, list):
        for number, item in enumerate(document, start=1):
            if not isinstance(item, Mapping):
                raise PersonaSourceError(
                    f"expected a persona object, got {type(item).__name__}", path=path, location=f"persona {number}"
                )
        return [(f"persona {number}", item) for number, item in enumerate(document, start=1)]
    raise PersonaSourceError("expected a persona object, a list of them, or {personas: [...]}", path=path)


def read_native(path: str | Path, convert: Callable[[Mapping[str, Any]], Persona] = native_persona) -> list[Persona]:
    """Every persona of a native JSON, YAML or JSONL file, validated against the Persona schema.

    `convert` reads each record (load_personas passes one that also takes OPeRA rows saved as JSON or YAML).
    """
    records = ((path, location, record) for location, record in read_native_records(path))
    return personas_from_records(records, convert)
