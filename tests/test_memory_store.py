"""The Chroma memory store on real embeddings: recall by meaning, isolation, whole replacement, crash safety."""

from __future__ import annotations

import pytest

from personas.memory_store import MEMORIES_COLLECTION, PersonaNotFound
from personas.open_store import open_memory_store
from personas.persona import Persona


def test_put_get_and_recall_ranks_relevant_memories(store, sample_users):
    for persona in sample_users:
        assert store.put_persona(persona) > 10
    first = sample_users[0]
    assert store.get_persona(first.id) == first
    memories = store.recall(first.id, "do I read reviews before I buy something?", k=5)
    assert len(memories) == 5
    assert all(m.persona_id == first.id for m in memories)
    assert [m.score for m in memories] == sorted((m.score for m in memories), reverse=True)
    assert any("review" in m.text.lower() for m in memories[:3])


def test_recall_never_returns_another_persons_memory(store, sample_users):
    a, b = sample_users
    store.put_persona(a)
    store.put_persona(b)
    for query in ("PhD student machine learning", "Amazon Prime", "interview"):
        ids_a = {m.id for m in store.recall(a.id, query, k=50)}
        ids_b = {m.id for m in store.recall(b.id, query, k=50)}
        assert ids_a and ids_b and not ids_a & ids_b
        assert all(i.startswith(a.id + ":") for i in ids_a)


def test_reimport_replaces_whole_persona_without_duplicates(store, sample_users):
    persona = sample_users[0]
    count = store.put_persona(persona)
    store.add_memory(persona.id, "I bought a standing desk last week and loved it.")
    changed = persona.model_copy(update={"self_description": "I am a chef who buys kitchen knives."})
    count2 = store.put_persona(changed)
    listed = store.list_memories(persona.id, limit=10_000)
    assert len(listed) == count2
    assert len({m.text for m in listed if m.kind == "profile"}) == len([m for m in listed if m.kind == "profile"])
    assert store.get_persona(persona.id).self_description.startswith("I am a chef")
    assert not any("standing desk" in m.text for m in listed)  # replaced whole, events included
    assert count == count2 or abs(count - count2) < 5


def test_events_are_recalled(store, sample_users):
    persona = sample_users[1]
    store.put_persona(persona)
    store.add_memory(persona.id, "Last month I returned a blender because it was too loud.")
    top = store.recall(persona.id, "returning a noisy kitchen appliance", k=1)[0]
    assert top.kind == "event" and "blender" in top.text


def test_unknown_and_deleted_personas(store, sample_users):
    with pytest.raises(PersonaNotFound):
        store.get_persona("nobody")
    with pytest.raises(PersonaNotFound):
        store.recall("nobody", "x")
    persona = sample_users[0]
    store.put_persona(persona)
    store.delete_persona(persona.id)
    assert not store.has_persona(persona.id)
    assert store.persona_ids() == []


def test_interrupted_import_leaves_the_old_persona_whole(tmp_path, sample_users, monkeypatch):
    """A crash after the new memories are written but before the commit point must not show them."""
    store = open_memory_store(path=tmp_path / "chroma")
    persona = sample_users[0]
    count = store.put_persona(persona)

    def crash(*args, **kwargs):
        raise RuntimeError("simulated crash at the commit point")

    monkeypatch.setattr(store._personas, "upsert", crash)
    with pytest.raises(RuntimeError):
        store.put_persona(persona.model_copy(update={"self_description": "half-written"}))
    monkeypatch.undo()
    assert store.get_persona(persona.id).self_description == persona.self_description
    assert len(store.list_memories(persona.id, limit=10_000)) == count
    assert all("half-written" not in m.text for m in store.recall(persona.id, "half-written", k=20))
    # the next import cleans the orphaned generation away
    store.put_persona(persona)
    total = store._client.get_collection(MEMORIES_COLLECTION).count()
    assert total == count


def test_native_persona_round_trip(store):
    persona = Persona(id="maria-1", preferences={"price_consciousness": 5}, self_description="I hunt for deals.")
    store.put_persona(persona)
    assert store.get_persona("maria-1") == persona
    assert store.recall("maria-1", "best value for money", k=1)[0].kind in ("preference", "profile")
