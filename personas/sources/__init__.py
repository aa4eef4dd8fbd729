"""Persona sources: read people from any supported file or record into validated Personas.

Three formats (see docs/personas.md):
- the OPeRA user table (CSV, JSONL, parquet file or directory): `opera_user_table`,
- the OPeRA personas.jsonl digest: `opera_personas_jsonl`,
- hand-written native personas (JSON or YAML): `native`.
OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0.

`load_personas(path)` and `persona_from_record(record)` pick the reader, so callers never have to.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from personas.persona import Persona
from personas.table_files import TableReadError, iter_jsonl

USER_TABLE_SUFFIXES = {".csv", ".parquet"}
NATIVE_SUFFIXES = {".json", ".yaml", ".yml"}


class PersonaSourceError(ValueError):
    """A persona source could not be read: says which file, which row or line, and which field."""

    def __init__(
        self, message: str, *, path: str | Path | None = None, location: str | None = None, field: str | None = None
    ) -> None:
        self.path = str(path) if path is not None else None
        self.location = location
        self.field = field
        self.reason = message
        where = ", ".join(part for part in (self.path, location, f"field '{field}'" if field else None) if part)
        super().__init__(f"{where}: {message}" if where else message)

    @classmethod
    def from_validation(
        cls, error: ValidationError, *, path: str | Path | None = None, location: str | None = None
    ) -> PersonaSourceError:
        """A pydantic error as a source error, naming the first offending field as a dotted path."""
        problems = error.errors()
        field = ".".join(str(part) for part in problems[0]["loc"]) if problems and problems[0]["loc"] else None
        detail = "; ".join(
            f"{'.'.join(str(p) for p in problem['loc']) or '(record)'}: {problem['msg']}" for problem in problems
        )
        return cls(detail, path=path, location=location, field=field)

    @classmethod
    def from_table(cls, error: TableReadError) -> PersonaSourceError:
        """A table file's read error (personas.table_files) as a source error, at the same file and line."""
        return cls(error.reason, path=error.path, location=error.location)

    def at(self, *, path: str | Path | None = None, location: str | None = None) -> PersonaSourceError:
        """The same error, placed in a file and row (readers know where, record parsers know what)."""
        return PersonaSourceError(
            self.reason,
            path=path if path is not None else self.path,
            location=location or self.location,
            field=self.field,
        )


def jsonl_records(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(location, object) for every line of a JSONL file; a bad line is a PersonaSourceError naming it."""
    try:
        for number, record in iter_jsonl(path):
            yield f"line {number}", record
    except TableReadError as error:
        raise PersonaSourceError.from_table(error) from None


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
