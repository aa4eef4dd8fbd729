"""`twinsim personas import`: write personas so that a re-import never loses information silently.

Records of one id, from several files of one run or from the store, are merged (personas/merge.py): the
richer record's values win and what only the other has is added. `replace=True` replaces whole, as asked.
Every outcome is one line saying what happened, so nothing is dropped without a word.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from personas.memory_store import MemoryStore
from personas.merge import merge_personas, richness
from personas.persona import Persona


@dataclass(frozen=True)
class ImportOutcome:
    persona_id: str
    action: str  # "imported", "replaced", "merged" or "unchanged"
    memories: int
    detail: str = ""

    def line(self) -> str:
        return f"{self.action} {self.persona_id} ({self.memories} memories){': ' + self.detail if self.detail else ''}"


def combine_loaded(personas: Iterable[tuple[str, Persona]]) -> dict[str, tuple[str, Persona]]:
    """One record per id from (file name, persona) pairs in file order; repeated ids merged, not overwritten."""
    combined: dict[str, tuple[str, Persona]] = {}
    for origin, persona in personas:
        if persona.id in combined:
            earlier_origin, earlier = combined[persona.id]
            persona, origin = merge_personas(earlier, persona).persona, f"{earlier_origin} + {origin}"
        combined[persona.id] = (origin, persona)
    return combined


def import_one(store: MemoryStore, persona: Persona, origin: str, *, replace: bool) -> ImportOutcome:
    """Write one persona: new, replaced whole (`replace`), merged with the stored record, or left as it is."""
    if not store.has_persona(persona.id):
        return ImportOutcome(persona.id, "imported", store.put_persona(persona), f"from {origin}")
    stored = store.get_persona(persona.id)
    if replace:
        count = store.put_persona(persona)
        return ImportOutcome(persona.id, "replaced", count,
                             f"the stored record ({richness(stored)} derived memories) replaced whole by {origin}")
    merged = merge_personas(stored, persona)
    if merged.persona == stored:
        return ImportOutcome(persona.id, "unchanged", len(store.list_memories(persona.id, limit=100_000)),
                             f"the stored record already holds everything in {origin}")
    count = store.put_persona(merged.persona, keep_events=True)
    if merged.kept == "stored":
        why = (f"kept the stored {stored.source} record (richer: {richness(stored)} derived memories against "
               f"{richness(persona)} from {origin})")
    else:
        why = f"took {origin} ({richness(persona)} derived memories against {richness(stored)} stored)"
    added = f"; added from the other: {', '.join(merged.added)}" if merged.added else ""
    return ImportOutcome(persona.id, "merged", count, f"{why}{added}; use --replace to replace whole")
