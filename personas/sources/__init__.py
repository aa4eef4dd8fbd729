"""Persona sources: read people from any supported file or record into validated Personas.

Three formats (see docs/personas.md):
- the OPeRA user table (CSV, JSONL, parquet file or directory): `opera_user_table`,
- the OPeRA personas.jsonl digest: `opera_personas_jsonl`,
- hand-written native personas (JSON or YAML): `native`.
OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0.

`load_personas(path)` and `persona_from_record(record)` pick the reader, so callers never have to.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from personas.persona import Persona
from personas.sources.records import jsonl_records
from personas.sources.source_error import PersonaSourceError

USER_TABLE_SUFFIXES = {".csv", ".parquet"}
NATIVE_SUFFIXES = {".json", ".yaml", ".yml"}


def record_kind(record: Mapping[str, Any]) -> str:
    """'opera_user_table', 'opera_personas_jsonl' or 'native', from the fields a record carries."""
    if "survey" in record or "raw_survey" in record:
        return "opera_user_table"
    if "big_five_levels" in record or "agrees_with" in record or "disagrees_with" in record:
        return "opera_personas_jsonl"
    return "native"


def persona_from_record(record: Mapping[str, Any]) -> Persona:
    """One dict (a native persona, an OPeRA user-table row or a personas.jsonl record) -> Persona.

    Raises PersonaSourceError for malformed OPeRA fields and pydantic's ValidationError (which names
    the field) for a native persona that does not fit the schema.
    """
    if not isinstance(record, Mapping):
        raise PersonaSourceError(f"a persona record must be an object, got {type(record).__name__}")
    kind = record_kind(record)
    if kind == "opera_user_table":
        from personas.sources.opera_user_table import persona_from_user_row

        return persona_from_user_row(record)
    if kind == "opera_personas_jsonl":
        from personas.sources.opera_personas_jsonl import persona_from_jsonl_record

        return persona_from_jsonl_record(record)
    from personas.sources.native import native_persona

    return native_persona(record)


def _first_jsonl_record(path: Path) -> dict[str, Any] | None:
    for _, record in jsonl_records(path):
        return record
    return None


def load_personas(path: str | Path) -> list[Persona]:
    """Every persona in a file or directory, the format detected from the extension and the content."""
    from personas.sources.native import read_native
    from personas.sources.opera_personas_jsonl import read_personas_jsonl
    from personas.sources.opera_user_table import read_user_table

    path = Path(path)
    if not path.exists():
        raise PersonaSourceError("no such file or directory", path=path)
    suffix = path.suffix.lower()
    if path.is_dir() or suffix in USER_TABLE_SUFFIXES:
        return read_user_table(path)
    if suffix == ".jsonl":
        first = _first_jsonl_record(path)
        kind = record_kind(first) if first is not None else "native"
        if kind == "opera_user_table":
            return read_user_table(path)
        if kind == "opera_personas_jsonl":
            return read_personas_jsonl(path)
        return read_native(path)
    if suffix in NATIVE_SUFFIXES:
        # A JSON/YAML document may also hold OPeRA rows (e.g. one user-table row saved by hand).
        return read_native(path, convert=persona_from_record)
    raise PersonaSourceError(
        f"unknown persona file type {suffix or '(none)'!r}; expected .csv, .parquet, a directory of parquet, "
        ".jsonl, .json, .yaml or .yml",
        path=path,
    )


__all__ = ["PersonaSourceError", "jsonl_records", "load_personas", "persona_from_record", "record_kind"]
