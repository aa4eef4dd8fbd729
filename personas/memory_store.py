"""The memory store: personas and their memories in Chroma, recalled by meaning, never across persons.

Layout: one collection of persona records (the validated Persona as JSON, plus its current
`generation`) and one collection of memories tagged with `persona_id` and `generation`.

Re-importing a persona writes a whole new generation of memories first, then switches the persona
record to it (the commit point), then deletes the generation it displaced (never "every other one": that
would include another writer's generation, written but not yet committed). A crash or a concurrent writer
at any moment leaves either the old persona whole or a new one whole: recall only ever reads the
generation the record names. `put_personas` does the same for many personas at once (one embedding pass, one
write of all their memories, one commit of all their records), which is what makes a bulk import fast.

The memories collection records which embedder wrote the vectors (its metadata `embedder`, e.g.
`all-MiniLM-L6-v2/onnx-int8`). A store written by another one (a store with no record was written by the torch
embedder, before the record existed) is re-embedded in place the first time this process needs the embedder: the
texts are stored, so the vectors are recomputed and updated, with one warning. Until that finishes the old vectors
still answer (they agree with the new ones to cosine >= 0.99); a crash midway leaves the record unchanged, so the
next process starts over. Commands that need no embedding (listing personas) never load the model.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import chromadb
from chromadb.api.types import Metadata, Where

from personas.embedder import EMBEDDER_ID, TORCH_EMBEDDER_ID, Embedder, get_embedder
from personas.memory_texts import core_profile_text, persona_memory_texts
from personas.memory_types import Memory, MemoryKind
from personas.persona import Persona, validate_persona_id

PERSONAS_COLLECTION = "twinsim_personas"
MEMORIES_COLLECTION = "twinsim_memories"
_CHROMA_BATCH = 1000
EMBEDDER_RECORD = "embedder"  # the memories collection's metadata key naming the embedder that wrote the vectors
UNRECORDED_EMBEDDER = TORCH_EMBEDDER_ID  # what wrote a store before the record existed
ABANDONED_AFTER = timedelta(minutes=15)  # far longer than any one persona's import takes


class PersonaNotFound(KeyError):
    """No persona with this id is stored."""


@dataclass(frozen=True)
class PersonaSummary:
    id: str
    name: str | None
    source: str
    memories: int
    updated_at: str


log = logging.getLogger(__name__)


def chroma_fields(result: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Chroma get or query result: chromadb types every field Optional whatever `include` asked for, and the
    fields asked for are always there."""
    return result


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class MemoryStore:
    """Personas and memories on one Chroma client (embedded or server); safe to share across requests."""

    def __init__(self, client: chromadb.ClientAPI, embedder: Embedder | None = None) -> None:
        self._client = client
        self._embedder = embedder
        self._embedder_matched = False
        self._embedder_lock = threading.Lock()
        # Embeddings are always ours: Chroma's default embedding function would download a model.
        self._personas = client.get_or_create_collection(
            PERSONAS_COLLECTION, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        self._memories = client.get_or_create_collection(
            MEMORIES_COLLECTION, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded on first use; the store's vectors are brought to it then (module docstring)."""
        if not self._embedder_matched:
            with self._embedder_lock:
                if not self._embedder_matched:
                    if self._embedder is None:
                        self._embedder = get_embedder()
                    self._match_embedder(self._embedder)
                    self._embedder_matched = True
        assert self._embedder is not None  # set above before it was matched
        return self._embedder

    @property
    def embedder_id(self) -> str:
        """The id of the embedder this store writes with, without loading it."""
        return self._embedder.id if self._embedder is not None else EMBEDDER_ID

    def recorded_embedder(self) -> str | None:
        """The embedder the store records as having written its vectors; None for a store from before the record."""
        return (self._client.get_collection(MEMORIES_COLLECTION).metadata or {}).get(EMBEDDER_RECORD)

    def _record_embedder(self, embedder_id: str) -> None:
        metadata = self._client.get_collection(MEMORIES_COLLECTION).metadata or {}
        self._memories.modify(metadata={**metadata, EMBEDDER_RECORD: embedder_id})

    def _match_embedder(self, embedder: Embedder) -> None:
        recorded = self.recorded_embedder()
        if recorded == embedder.id:
            return
        memory_ids = self._memories.get(include=[])["ids"]
        persona_ids = self._personas.get(include=[])["ids"]
        if memory_ids or persona_ids:
            log.warning(
                "this memory store's vectors were written by %s; re-embedding its %d memories and %d personas "
                "with %s, once",
                recorded or UNRECORDED_EMBEDDER,
                len(memory_ids),
                len(persona_ids),
                embedder.id,
            )
            for start in range(0, len(memory_ids), _CHROMA_BATCH):
                got = chroma_fields(
                    self._memories.get(ids=memory_ids[start : start + _CHROMA_BATCH], include=["documents"])
                )
                if got["ids"]:  # an id deleted meanwhile by another writer is simply gone
                    self._memories.update(ids=got["ids"], embeddings=embedder.embed(got["documents"]))
            for start in range(0, len(persona_ids), _CHROMA_BATCH):
                got = chroma_fields(
                    self._personas.get(ids=persona_ids[start : start + _CHROMA_BATCH], include=["documents"])
                )
                if got["ids"]:
                    profiles = [profile_text(Persona.model_validate_json(document)) for document in got["documents"]]
                    self._personas.update(ids=got["ids"], embeddings=embedder.embed(profiles))
        self._record_embedder(embedder.id)

    # ---- personas -------------------------------------------------------------------------------

    def put_persona(self, persona: Persona, *, keep_events: bool = False) -> int:
        """Store (or replace whole) a persona and its derived memories; returns the memory count.

        With `keep_events`, the event memories of the stored persona (sessions appended through
        `add_memory`) move to the new generation too, so a merge-import loses none of them.
        """
        return self.put_personas([(persona, keep_events)])[0]

    def put_personas(self, items: Sequence[tuple[Persona, bool]]) -> list[int]:
        """`put_persona` for many (persona, keep_events) at once, with the same guarantees for each persona.

        One embedding pass over every text (batches of similar length: far less padding than persona by persona),
        one write of all the new generations, one upsert of all the records (each record is its persona's commit
        point), then one clean-up. Returns the memory counts in order.
        """
        ids = [persona.id for persona, _ in items]
        if len(set(ids)) != len(ids):
            raise ValueError("put_personas: each persona at most once per call")
        if not items:
            return []
        now = _now()
        plans = [
            (persona, keep_events, uuid.uuid4().hex, persona_memory_texts(persona)) for persona, keep_events in items
        ]
        texts = [text for _, _, _, pairs in plans for _, text in pairs]
        vectors = self.embedder.embed(texts + [profile_text(persona) for persona, *_ in plans])
        memory_vectors, profile_vectors = vectors[: len(texts)], vectors[len(texts) :]
        memory_ids: list[str] = []
        documents: list[str] = []
        metadatas: list[Metadata] = []
        for persona, _, generation, pairs in plans:
            memory_ids += [f"{persona.id}:{generation}:{i:05d}" for i in range(len(pairs))]
            documents += [text for _, text in pairs]
            metadatas += [
                {"persona_id": persona.id, "generation": generation, "kind": kind, "seq": i, "created_at": now}
                for i, (kind, _) in enumerate(pairs)
            ]
        ours = {persona.id: generation for persona, _, generation, _ in plans}
        try:
            for start in range(0, len(memory_ids), _CHROMA_BATCH):
                end = start + _CHROMA_BATCH
                self._memories.add(
                    ids=memory_ids[start:end],
                    embeddings=memory_vectors[start:end].tolist(),
                    documents=documents[start:end],
                    metadatas=metadatas[start:end],
                )
            events = {
                persona.id: self._copy_events(persona.id, generation) if keep_events else 0
                for persona, keep_events, generation, _ in plans
            }
            for persona_id, generation in ours.items():
                self._generation_written(persona_id, generation)
            displaced = self._current_generations(ids)
            self._personas.upsert(  # the commit point of each persona: from here on its new generation is it
                ids=ids,
                embeddings=profile_vectors.tolist(),
                documents=[persona.model_dump_json() for persona, *_ in plans],
                metadatas=[
                    {
                        "persona_id": persona.id,
                        "generation": generation,
                        "updated_at": now,
                        "source": persona.source,
                        "name": persona.name or "",
                    }
                    for persona, _, generation, _ in plans
                ],
            )
        except BaseException:
            self._delete_generations(list(ours.items()))  # a failed write leaves nothing behind
            raise
        self._clean_up(ours, displaced)
        return [len(pairs) + events[persona.id] for persona, _, _, pairs in plans]

    def _clean_up(self, ours: dict[str, str], displaced: dict[str, str]) -> None:
        """After committing: delete what each commit displaced and generations abandoned long ago; and our own
        generation where another writer committed after us (nothing will ever read it again). Never "every other
        generation": a younger one may be another writer's, written but not yet committed."""
        doomed = [(pid, old) for pid, old in displaced.items() if old != ours[pid]]
        current = self._current_generations(list(ours))
        cutoff = (datetime.now(UTC) - ABANDONED_AFTER).isoformat(timespec="seconds")
        newest: dict[tuple[str, str], str] = {}  # copied events keep their own, older, time: judge by the newest entry
        for start in range(0, len(ours), _CHROMA_BATCH):
            chunk = list(ours)[start : start + _CHROMA_BATCH]
            in_chunk: dict[Literal["$in", "$nin"], list[str | int | float | bool]] = {"$in": [*chunk]}
            got = chroma_fields(self._memories.get(where={"persona_id": in_chunk}, include=["metadatas"]))
            for meta in got["metadatas"]:
                key = (meta["persona_id"], meta["generation"])
                if key[1] not in (ours[key[0]], current.get(key[0]), displaced.get(key[0])):
                    newest[key] = max(newest.get(key, ""), meta.get("created_at", ""))
        doomed += [key for key, written in newest.items() if written < cutoff]
        doomed += [(pid, generation) for pid, generation in ours.items() if current.get(pid) != generation]
        self._delete_generations(doomed)

    def _generation_written(self, persona_id: str, generation: str) -> None:
        """Called between writing a generation and committing it; a seam for tests that force interleavings."""

    def _current_generation(self, persona_id: str) -> str | None:
        return self._current_generations([persona_id]).get(persona_id)

    def _current_generations(self, persona_ids: list[str]) -> dict[str, str]:
        got = chroma_fields(self._personas.get(ids=persona_ids, include=["metadatas"]))
        return {pid: meta["generation"] for pid, meta in zip(got["ids"], got["metadatas"], strict=True)}

    def _delete_generations(self, pairs: list[tuple[str, str]]) -> None:
        """Delete the memories of each (persona id, generation), a hundred pairs a call."""
        clauses: list[Where] = [
            {"$and": [{"persona_id": pid}, {"generation": generation}]} for pid, generation in dict.fromkeys(pairs)
        ]
        for start in range(0, len(clauses), 100):
            chunk = clauses[start : start + 100]
            self._memories.delete(where=chunk[0] if len(chunk) == 1 else {"$or": chunk})

    def _copy_events(self, persona_id: str, generation: str) -> int:
        """Copy the stored persona's event memories into `generation` (same text, time and embedding)."""
        current = self._current_generation(persona_id)
        if current is None:
            return 0
        got = chroma_fields(
            self._memories.get(
                where={"$and": [{"persona_id": persona_id}, {"generation": current}, {"seq": -1}]},
                include=["documents", "metadatas", "embeddings"],
            )
        )
        if not got["ids"]:
            return 0
        vectors: list[Sequence[float] | Sequence[int]] = [list(map(float, vector)) for vector in got["embeddings"]]
        self._memories.add(
            ids=[f"{persona_id}:{generation}:{old_id.rsplit(':', 1)[-1]}" for old_id in got["ids"]],
            embeddings=vectors,
            documents=got["documents"],
            metadatas=[{**meta, "generation": generation} for meta in got["metadatas"]],
        )
        return len(got["ids"])

    def _record(self, persona_id: str) -> tuple[str, dict[str, Any]]:
        validate_persona_id(persona_id)
        got = chroma_fields(self._personas.get(ids=[persona_id], include=["documents", "metadatas"]))
        if not got["ids"]:
            raise PersonaNotFound(persona_id)
        return got["documents"][0], got["metadatas"][0]

    def get_persona(self, persona_id: str) -> Persona:
        document, _ = self._record(persona_id)
        return Persona.model_validate_json(document)

    def has_persona(self, persona_id: str) -> bool:
        try:
            self._record(persona_id)
        except (PersonaNotFound, ValueError):
            return False
        return True

    def list_personas(self, limit: int = 1000, offset: int = 0) -> list[PersonaSummary]:
        got = chroma_fields(self._personas.get(include=["metadatas"], limit=limit, offset=offset))
        summaries = []
        for pid, meta in sorted(zip(got["ids"], got["metadatas"], strict=True), key=lambda pair: pair[0]):
            count = len(
                self._memories.get(
                    where={"$and": [{"persona_id": pid}, {"generation": meta["generation"]}]}, include=[]
                )["ids"]
            )
            summaries.append(
                PersonaSummary(pid, meta.get("name") or None, meta.get("source", ""), count, meta.get("updated_at", ""))
            )
        return summaries

    def persona_ids(self) -> list[str]:
        return sorted(self._personas.get(include=[])["ids"])

    def delete_persona(self, persona_id: str) -> None:
        self._record(persona_id)
        self._personas.delete(ids=[persona_id])  # the commit point: the persona is gone
        self._memories.delete(where={"persona_id": persona_id})

    # ---- memories -------------------------------------------------------------------------------

    def add_memory(self, persona_id: str, text: str, kind: MemoryKind = "event") -> Memory:
        """Append a memory (e.g. what happened in a session) to the persona's current generation."""
        _, meta = self._record(persona_id)
        now = _now()
        memory_id = f"{persona_id}:{meta['generation']}:e{uuid.uuid4().hex[:12]}"
        self._memories.add(
            ids=[memory_id],
            embeddings=self.embedder.embed([text]).tolist(),
            documents=[text],
            metadatas=[
                {"persona_id": persona_id, "generation": meta["generation"], "kind": kind, "seq": -1, "created_at": now}
            ],
        )
        return Memory(id=memory_id, persona_id=persona_id, kind=kind, text=text, created_at=now)

    def recall(self, persona_id: str, query: str, k: int = 5) -> list[Memory]:
        """The k memories of this persona closest in meaning to the query, best first, scored 0..1."""
        _, meta = self._record(persona_id)
        if k <= 0:
            return []
        query_vectors: list[Sequence[float] | Sequence[int]] = [self.embedder.embed_query(query or "shopping")]
        result = chroma_fields(
            self._memories.query(
                query_embeddings=query_vectors,
                n_results=k,
                where={"$and": [{"persona_id": persona_id}, {"generation": meta["generation"]}]},
                include=["documents", "metadatas", "distances"],
            )
        )
        memories = []
        for memory_id, text, m, distance in zip(
            result["ids"][0], result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True
        ):
            if m.get("persona_id") != persona_id:  # belt and braces: never another person's memory
                continue
            memories.append(
                Memory(
                    id=memory_id,
                    persona_id=persona_id,
                    kind=m["kind"],
                    text=text,
                    score=round(max(0.0, 1.0 - float(distance)), 4),
                    created_at=m.get("created_at"),
                )
            )
        return memories

    def list_memories(
        self, persona_id: str, kind: str | None = None, limit: int = 200, offset: int = 0
    ) -> list[Memory]:
        _, meta = self._record(persona_id)
        clauses: list[dict[str, Any]] = [{"persona_id": persona_id}, {"generation": meta["generation"]}]
        if kind:
            clauses.append({"kind": kind})
        got = chroma_fields(self._memories.get(where={"$and": clauses}, include=["documents", "metadatas"]))
        rows = sorted(
            zip(got["ids"], got["documents"], got["metadatas"], strict=True),
            key=lambda r: (r[2].get("seq", -1) < 0, r[2].get("created_at", ""), r[2].get("seq", 0)),
        )
        return [
            Memory(id=i, persona_id=persona_id, kind=m["kind"], text=d, created_at=m.get("created_at"))
            for i, d, m in rows[offset : offset + limit]
        ]


def profile_text(persona: Persona) -> str:
    """What the persona record's own vector embeds."""
    return core_profile_text(persona) or persona.id
