"""`twinsim personas import`: write personas so that a re-import never loses information silently.

Records of one id, from several files of one run or from the store, are merged (personas/merge.py): the
richer record's values win and what only the other has is added. `replace=True` replaces whole, as asked.
Every outcome is one line saying what happened, so nothing is dropped without a word.

Writes go in batches of about BATCH_MEMORIES memories (`put_personas`: one embedding pass, one Chroma write, one
commit of the batch's records): most of an import's time was embedding persona by persona. A batch is small enough
that the outcome lines (and the progress bar) move every second or so, and a killed import loses one batch at most.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from personas.memory_texts import persona_memory_texts
from personas.merge import merge_personas, richness
from personas.persona import Persona
from service.tenant_store import TenantScopedStore

BATCH_MEMORIES = 128


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


@dataclass
class _Write:
    persona: Persona
    keep_events: bool
    outcome: Callable[[int], ImportOutcome]  # from the memory count written
    done: ImportOutcome | None = None


def _plan(store: TenantScopedStore, persona: Persona, origin: str, *, replace: bool) -> ImportOutcome | _Write:
    """What to do with one persona: write it new, replace it whole (`replace`), merge it with the stored record, or
    leave the store as it is (an outcome already)."""
    if not store.has_persona(persona.id):
        return _Write(persona, False, lambda count: ImportOutcome(persona.id, "imported", count, f"from {origin}"))
    stored = store.get_persona(persona.id)
    if replace:
        return _Write(
            persona,
            False,
            lambda count: ImportOutcome(
                persona.id,
                "replaced",
                count,
                f"the stored record ({richness(stored)} derived memories) replaced whole by {origin}",
            ),
        )
    merged = merge_personas(stored, persona)
    if merged.persona == stored:
        return ImportOutcome(
            persona.id,
            "unchanged",
            len(store.list_memories(persona.id, limit=100_000)),
            f"the stored record already holds everything in {origin}",
        )
    if merged.kept == "stored":
        why = (
            f"kept the stored {stored.source} record (richer: {richness(stored)} derived memories against "
            f"{richness(persona)} from {origin})"
        )
    else:
        why = f"took {origin} ({richness(persona)} derived memories against {richness(stored)} stored)"
    added = f"; added from the other: {', '.join(merged.added)}" if merged.added else ""
    return _Write(
        merged.persona,
        True,
        lambda count: ImportOutcome(persona.id, "merged", count, f"{why}{added}; use --replace to replace whole"),
    )


def import_personas(
    store: TenantScopedStore,
    records: Iterable[tuple[str, Persona]],
    *,
    replace: bool,
    batch_memories: int = BATCH_MEMORIES,
) -> Iterator[ImportOutcome]:
    """Write (origin, persona) records, one outcome each, in their order, yielded as soon as its batch commits."""
    queue: list[ImportOutcome | _Write] = []
    batch: list[_Write] = []
    memories = 0

    def written() -> Iterator[ImportOutcome]:
        nonlocal memories
        if batch:
            counts = store.put_personas([(write.persona, write.keep_events) for write in batch])
            for write, count in zip(batch, counts, strict=True):
                write.done = write.outcome(count)
            batch.clear()
            memories = 0
        while queue and (isinstance(queue[0], ImportOutcome) or queue[0].done is not None):
            first = queue.pop(0)
            outcome = first if isinstance(first, ImportOutcome) else first.done
            assert outcome is not None  # the loop's condition
            yield outcome

    for origin, persona in records:
        step = _plan(store, persona, origin, replace=replace)
        queue.append(step)
        if isinstance(step, _Write):
            batch.append(step)
            memories += len(persona_memory_texts(step.persona))
            if memories >= batch_memories:
                yield from written()
        elif not batch:
            yield from written()
    yield from written()
