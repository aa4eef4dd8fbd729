"""An embedded store keeps what it reads in memory: one process writes it, so its own writes are all there is.

An embedded Chroma directory is held by one process (personas/store_lock.py), so every change to it goes
through this process's store objects on that directory, which share one `_KeptRecords`: a persona's record
and the vectors of its current generation can be kept in memory and dropped on each write. A prediction
then reads the persona and recalls its memories without a Chroma call (two calls, ~2 ms of a warm /predict):
recall is the same exact cosine top-k Chroma computes, over the persona's few dozen memories. A Chroma
server has other writers, so `MemoryStore` there reads Chroma every time. Chroma stays the store of record.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chromadb
import numpy as np

from personas.embedder import Embedder
from personas.memory_store import MemoryStore, chroma_fields
from personas.memory_types import Memory, MemoryKind
from personas.persona import Persona

PERSONAS_KEPT = 2048  # about 40 KB of vectors each: ~80 MB at most


@dataclass(frozen=True)
class _Kept:
    document: str
    meta: dict[str, Any]
    ids: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    metas: tuple[dict[str, Any], ...] = ()
    vectors: np.ndarray | None = None  # (n, dim) unit rows of the current generation; None until a recall


class _KeptRecords:
    """What the stores of one directory keep, shared by every store object this process opens on it."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, _Kept] = OrderedDict()
        self.writes: dict[str, int] = {}  # per persona: a read that began before a write must not be kept
        self.guard = threading.Lock()

    def version(self, persona_id: str) -> int:
        with self.guard:
            return self.writes.get(persona_id, 0)

    def keep(self, persona_id: str, entry: _Kept, version: int) -> None:
        with self.guard:
            if self.writes.get(persona_id, 0) != version:
                return
            self.entries[persona_id] = entry
            self.entries.move_to_end(persona_id)
            while len(self.entries) > PERSONAS_KEPT:
                self.entries.popitem(last=False)

    def get(self, persona_id: str) -> _Kept | None:
        with self.guard:
            entry = self.entries.get(persona_id)
            if entry is not None:
                self.entries.move_to_end(persona_id)
            return entry

    def forget_all(self) -> None:
        with self.guard:
            for persona_id in self.entries:
                self.writes[persona_id] = self.writes.get(persona_id, 0) + 1
            self.entries.clear()

    def forget(self, persona_id: str) -> None:
        with self.guard:
            self.entries.pop(persona_id, None)
            self.writes[persona_id] = self.writes.get(persona_id, 0) + 1


_by_directory: dict[Path, _KeptRecords] = {}
_registry_guard = threading.Lock()


def _kept_records(path: str | Path) -> _KeptRecords:
    with _registry_guard:
        return _by_directory.setdefault(Path(path).resolve(), _KeptRecords())


def _rows(embeddings: Any, count: int) -> np.ndarray:
    """The vectors as (count, dim) rows; a persona with no memories has none, (0, 0) (reshaping an empty array to
    (0, -1) raises, which once made every request touching such a persona a 500)."""
    if count == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return np.asarray(embeddings, dtype=np.float32).reshape(count, -1)


class EmbeddedMemoryStore(MemoryStore):
    """A MemoryStore on an embedded client: records and recall vectors kept per persona, dropped on every write."""

    def __init__(self, client: chromadb.ClientAPI, path: str | Path, embedder: Embedder | None = None) -> None:
        super().__init__(client, embedder)
        self._kept = _kept_records(path)

    # ---- reads ----------------------------------------------------------------------------------

    def _record(self, persona_id: str) -> tuple[str, dict[str, Any]]:
        entry = self._kept.get(persona_id)
        if entry is not None:
            return entry.document, entry.meta
        version = self._kept.version(persona_id)
        document, meta = super()._record(persona_id)
        self._kept.keep(persona_id, _Kept(document, meta), version)
        return document, meta

    def recall(self, persona_id: str, query: str, k: int = 5) -> list[Memory]:
        embedder = self.embedder  # first: a store written by another model is re-embedded before vectors are kept
        entry = self._kept.get(persona_id)
        if entry is None or entry.vectors is None:
            version = self._kept.version(persona_id)
            document, meta = super()._record(persona_id)
            got = chroma_fields(
                self._memories.get(
                    where={"$and": [{"persona_id": persona_id}, {"generation": meta["generation"]}]},
                    include=["documents", "metadatas", "embeddings"],
                )
            )
            entry = _Kept(
                document,
                meta,
                tuple(got["ids"]),
                tuple(got["documents"]),
                tuple(got["metadatas"]),
                _rows(got["embeddings"], len(got["ids"])),
            )
            self._kept.keep(persona_id, entry, version)
        if k <= 0 or not entry.ids:
            return []
        assert entry.vectors is not None  # kept with its vectors just above
        query_vector = np.asarray(embedder.embed_query(query or "shopping"), dtype=np.float32)
        similarity = entry.vectors @ query_vector
        best = np.argsort(-similarity, kind="stable")[:k]
        return [
            Memory(
                id=entry.ids[i],
                persona_id=persona_id,
                kind=entry.metas[i]["kind"],
                text=entry.texts[i],
                score=round(max(0.0, float(similarity[i])), 4),
                created_at=entry.metas[i].get("created_at"),
            )
            for i in best
        ]

    # ---- writes drop what was kept ----------------------------------------------------------------

    def put_personas(self, items: Sequence[tuple[Persona, bool]]) -> list[int]:
        ids = [persona.id for persona, _ in items]
        for persona_id in ids:
            self._kept.forget(persona_id)
        try:
            return super().put_personas(items)
        finally:
            for persona_id in ids:
                self._kept.forget(persona_id)

    def _match_embedder(self, embedder: Embedder) -> None:
        try:
            super()._match_embedder(embedder)
        finally:
            self._kept.forget_all()  # vectors kept before a re-embedding are another model's

    def add_memory(self, persona_id: str, text: str, kind: MemoryKind = "event") -> Memory:
        try:
            return super().add_memory(persona_id, text, kind)
        finally:
            self._kept.forget(persona_id)

    def delete_persona(self, persona_id: str) -> None:
        self._kept.forget(persona_id)
        try:
            super().delete_persona(persona_id)
        finally:
            self._kept.forget(persona_id)
