"""The embedded store keeps records and recall vectors in memory: it must answer exactly as Chroma does, and
every write (re-import, a new memory, a delete) must show at once. Real OPeRA personas (Wang et al. 2025,
arXiv 2506.05606, CC-BY-4.0), a real embedded Chroma store."""

from __future__ import annotations

import pytest

from personas.embedded_store import EmbeddedMemoryStore
from personas.memory_store import MemoryStore, PersonaNotFound
from personas.open_store import open_memory_store

QUERIES = [
    "do I read reviews before buying",
    "cheap usb cable",
    "Prime delivery",
    "what I do for work",
    "brands I like",
    "how much I spend a month",
    "I am outgoing",
    "",
]


@pytest.fixture()
def opera_personas(opera_dir):
    from personas.sources import load_personas

    return load_personas(opera_dir / "personas.jsonl")


@pytest.fixture()
def stores(tmp_path, opera_personas):
    store = open_memory_store(path=tmp_path / "chroma")
    assert isinstance(store, EmbeddedMemoryStore)
    for persona in opera_personas[:3]:
        store.put_persona(persona)
    plain = MemoryStore(store._client, embedder=store.embedder)  # the same Chroma collections, read every time
    return store, plain, opera_personas[:3]


def test_recall_is_chromas_recall(stores):
    store, plain, personas = stores
    for persona in personas:
        for query in QUERIES:
            for k in (1, 5, 50):
                kept, chroma = store.recall(persona.id, query, k), plain.recall(persona.id, query, k)
                assert [m.id for m in kept] == [m.id for m in chroma], (persona.id, query, k)
                assert [m.score for m in kept] == pytest.approx([m.score for m in chroma], abs=2e-4)
                assert all(m.persona_id == persona.id for m in kept)


def test_every_write_shows_at_once(stores):
    store, plain, personas = stores
    first = personas[0]
    store.recall(first.id, "shopping", 5)  # kept now
    added = store.add_memory(first.id, "I bought a braided usb c cable last week and returned it", kind="event")
    assert store.recall(first.id, "braided usb c cable I returned", 1)[0].id == added.id

    renamed = first.model_copy(update={"name": "Renamed Person"})
    store.put_persona(renamed, keep_events=True)
    assert store.get_persona(first.id).name == "Renamed Person"
    assert [m.id for m in store.recall(first.id, "what I do for work", 5)] == [
        m.id for m in plain.recall(first.id, "what I do for work", 5)
    ]

    store.delete_persona(first.id)
    with pytest.raises(PersonaNotFound):
        store.recall(first.id, "shopping", 5)
    assert not store.has_persona(first.id)
