"""What every persona reader does with the records it found, written once: convert each, place any error
at its file and position, refuse an id seen twice; the user_id check both OPeRA readers make; and a JSONL
file's records, each bad line an error naming it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from personas.persona import Persona, validate_persona_id
from personas.sources.source_error import PersonaSourceError
from personas.table_files import TableReadError, iter_jsonl

SourceRecord = tuple[str | Path, str, Mapping[str, Any]]  # (file, location in it, record)


def personas_from_records(
    records: Iterable[SourceRecord],
    convert: Callable[[Mapping[str, Any]], Persona],
    *,
    id_field: str = "id",
    identical_repeats: bool = False,
) -> list[Persona]:
    """The personas of `records`, in order; an error names the file, the position and, for an id, `id_field`.

    With `identical_repeats` a persona listed again unchanged is kept once (a user in both the train and
    test splits of the OPeRA user table); otherwise any id seen twice is an error.
    """
    personas: dict[str, Persona] = {}
    for path, location, record in records:
        try:
            persona = convert(record)
        except PersonaSourceError as error:
            raise error.at(path=path, location=location) from None
        except ValidationError as error:  # a value that does not fit the Persona schema
            raise PersonaSourceError.from_validation(error, path=path, location=location) from error
        earlier = personas.get(persona.id)
        if earlier is not None and not (identical_repeats and earlier == persona):
            repeated = "appears twice with different contents" if identical_repeats else "appears twice"
            raise PersonaSourceError(
                f"persona id {persona.id!r} {repeated}", path=path, location=location, field=id_field
            )
        personas.setdefault(persona.id, persona)
    return list(personas.values())


def checked_user_id(user_id: str | None) -> str:
    """An OPeRA user_id fit to be a persona id; a missing or unusable one is an error on the user_id field."""
    if user_id is None:
        raise PersonaSourceError("missing user_id", field="user_id")
    try:
        return validate_persona_id(user_id)
    except ValueError as error:
        raise PersonaSourceError(f"{error} (got {user_id!r})", field="user_id") from None


def jsonl_records(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(location, object) for every line of a JSONL file; a bad line is a PersonaSourceError naming it."""
    try:
        for number, record in iter_jsonl(path):
            yield f"line {number}", record
    except TableReadError as error:
        raise PersonaSourceError.from_table(error) from None
