"""Merging two records of one person, so that importing a thinner source never loses a richer one.

The README's own order imports the OPeRA user table (IPIP-50 answers, interview transcript, ~54 memories)
and then personas.jsonl (a digest of the same people, ~24 memories). Replacing would silently throw the
richer record away; merging keeps the richer record's values and adds what only the other one has.
OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from personas.memory_texts import persona_memory_texts
from personas.persona import Persona


@dataclass(frozen=True)
class MergedPersona:
    persona: Persona
    kept: str  # "stored" or "incoming": whose values win where both have one
    added: tuple[str, ...]  # dotted field names the winner lacked and the other record filled in

    @property
    def changed(self) -> bool:
        return self.kept == "incoming" or bool(self.added)


def richness(persona: Persona) -> int:
    """How much a twin gets from a record: the memories it yields (transcript chunks, items, statements)."""
    return len(persona_memory_texts(persona))


def merge_personas(stored: Persona, incoming: Persona) -> MergedPersona:
    """The richer record (the incoming one on a tie: it is newer), with empty fields filled from the other."""
    if stored.id != incoming.id:
        raise ValueError(f"cannot merge persona {stored.id!r} with {incoming.id!r}")
    keep_stored = richness(stored) > richness(incoming)
    base, other = (stored, incoming) if keep_stored else (incoming, stored)
    added: list[str] = []
    merged = _fill(base, other, "", added)
    return MergedPersona(
        persona=Persona.model_validate(merged.model_dump()),
        kept="stored" if keep_stored else "incoming",
        added=tuple(added),
    )


def _is_empty(value: Any, default: Any) -> bool:
    return value is None or value == default or (isinstance(value, (dict, list, str)) and not value)


def _fill(base: Any, other: Any, path: str, added: list[str]) -> Any:
    """`base` with every empty value (None, empty, the field's default) taken from `other`, recursively."""
    if isinstance(base, BaseModel) and type(base) is type(other):
        update = {}
        for name, field in type(base).model_fields.items():
            mine, theirs = getattr(base, name), getattr(other, name)
            where = f"{path}.{name}" if path else name
            if isinstance(mine, (BaseModel, dict)) and not _is_empty(
                mine, field.get_default(call_default_factory=True)
            ):
                filled = _fill(mine, theirs, where, added)
            elif _is_empty(mine, field.get_default(call_default_factory=True)) and not _is_empty(
                theirs, field.get_default(call_default_factory=True)
            ):
                filled = theirs
                added.append(where)
            else:
                filled = mine
            if filled is not mine:
                update[name] = filled
        return base.model_copy(update=update) if update else base
    if isinstance(base, dict) and isinstance(other, dict):
        missing = {key: value for key, value in other.items() if key not in base}
        added.extend(f"{path}.{key}" for key in missing)
        return {**base, **missing} if missing else base
    return base
