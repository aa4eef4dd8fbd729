"""The store records which embedder wrote its vectors; a store written by another one (or before the record existed,
by the torch embedder) is re-embedded in place on first use, with a warning; listing personas loads no model."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings as ChromaSettings

from personas.embedder import EMBEDDER_ID, TORCH_EMBEDDER_ID, Embedder, TorchEmbedder
from personas.memory_store import (
    EMBEDDER_RECORD,
    MEMORIES_COLLECTION,
    PERSONAS_COLLECTION,
    MemoryStore,
    profile_text,
)
from personas.open_store import open_chroma_client, open_memory_store
from personas.persona import Persona

REPO = Path(__file__).resolve().parents[1]


def stored_vectors(client, collection: str) -> tuple[list[str], np.ndarray]:
    got = client.get_collection(collection).get(include=["documents", "embeddings"])
    return got["documents"], np.asarray(got["embeddings"], dtype=np.float32)


def test_a_new_store_records_the_embedder_that_wrote_it(tmp_path, sample_users):
    store = open_memory_store(path=tmp_path / "chroma")
    assert store.recorded_embedder() is None and store.embedder_id == EMBEDDER_ID  # nothing written, no model loaded
    store.put_persona(sample_users[0])
    assert store.recorded_embedder() == EMBEDDER_ID == store.embedder.id
    assert open_memory_store(path=tmp_path / "chroma").recorded_embedder() == EMBEDDER_ID  # persisted


@pytest.mark.parametrize("written_by", ["torch, recorded", "torch, before the record existed"])
def test_a_store_written_by_another_embedder_is_re_embedded_in_place(tmp_path, sample_users, caplog, written_by):
    client = open_chroma_client(path=tmp_path / "chroma")
    old = MemoryStore(client, embedder=TorchEmbedder())
    for persona in sample_users:
        old.put_persona(persona)
    event = old.add_memory(sample_users[0].id, "Last month I returned a blender because it was too loud.")
    assert old.recorded_embedder() == TORCH_EMBEDDER_ID
    if written_by.endswith("before the record existed"):
        client.get_collection(MEMORIES_COLLECTION).modify(metadata={EMBEDDER_RECORD: None})  # as today's stores are
        assert old.recorded_embedder() is None
    before = {m.id for m in old.list_memories(sample_users[0].id, limit=10_000)}

    store = MemoryStore(client)  # the served embedder
    with caplog.at_level(logging.WARNING, logger="personas.memory_store"):
        top = store.recall(sample_users[0].id, "returning a noisy kitchen appliance", k=1)[0]
    (warning,) = [r.getMessage() for r in caplog.records if "re-embedding" in r.getMessage()]
    assert TORCH_EMBEDDER_ID in warning and EMBEDDER_ID in warning
    assert store.recorded_embedder() == EMBEDDER_ID
    assert top.id == event.id  # the memories are all there, recalled by meaning
    assert {m.id for m in store.list_memories(sample_users[0].id, limit=10_000)} == before

    embedder = Embedder()
    documents, vectors = stored_vectors(client, MEMORIES_COLLECTION)
    assert np.sum(vectors * embedder.embed(documents), axis=1).min() > 0.9999  # every vector is the new embedder's
    records, profiles = stored_vectors(client, PERSONAS_COLLECTION)
    texts = [profile_text(Persona.model_validate_json(record)) for record in records]
    assert np.sum(profiles * embedder.embed(texts), axis=1).min() > 0.9999

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="personas.memory_store"):
        MemoryStore(client).recall(sample_users[1].id, "prime", k=1)
    assert not [r for r in caplog.records if "re-embedding" in r.getMessage()]  # once


def test_listing_personas_loads_no_model(tmp_path, sample_users):
    data_dir = tmp_path / "data"
    write = (
        "from personas.embedder import TorchEmbedder\nfrom personas.memory_store import MemoryStore\n"
        "from personas.open_store import open_chroma_client\n"
        "from personas.sources import load_personas\nfrom agent.opera_data import opera_data_dir\n"
        "persona = load_personas(opera_data_dir() / 'users_sample.csv')[0]\n"
        f"MemoryStore(open_chroma_client(path={str(data_dir / 'chroma')!r}), "
        "embedder=TorchEmbedder()).put_persona(persona)"
    )
    subprocess.run([sys.executable, "-c", write], cwd=REPO, check=True, capture_output=True, timeout=600)
    listing = (
        "import sys\nfrom service.cli.main import app\ntry: app(['personas', 'list'])\nexcept SystemExit: pass\n"
        "print(sorted(m for m in ('onnxruntime', 'torch', 'sentence_transformers') if m in sys.modules))"
    )
    env = {**os.environ, "TWINSIM_DATA_DIR": str(data_dir), "COLUMNS": "400"}
    done = subprocess.run(
        [sys.executable, "-c", listing], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[0] == sample_users[0].id and lines[-1] == "[]"
    assert "re-embedding" not in done.stderr
    client = chromadb.PersistentClient(
        path=str(data_dir / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
    )
    assert client.get_collection(MEMORIES_COLLECTION).metadata == {EMBEDDER_RECORD: TORCH_EMBEDDER_ID}  # left as it was
