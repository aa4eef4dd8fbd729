"""The ONNX embedder against the torch one it replaces: the same vectors to cosine >= 0.99 on real memory texts and
recall queries; a missing ONNX file is converted on first use, locally, with one line on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from personas.embedder import EMBEDDER_ID, Embedder, TorchEmbedder, embedder_id
from personas.memory_texts import core_profile_text, persona_memory_texts
from personas.minilm_wheel import EMBEDDING_DIM
from personas.onnx_export import DEFAULT_VARIANT, ensure_onnx, onnx_path

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "searching for usb c cable; Amazon.com : usb c cable; on a search results page; search button",
    "how I shop online and what matters to me when I buy",
    "do I read reviews before I buy something?",
    "Amazon Prime",
]
AGREEMENT = 0.99  # every text, not on average (benchmarks/embedder_speed.py measures the served variant's margin);
# a text of no word at all ("", never a memory, never a query: recall asks "shopping" then) agrees to 0.983 only


@pytest.fixture(scope="module")
def texts(sample_users) -> list[str]:
    persona = sample_users[0]
    memories = [text for _, text in persona_memory_texts(persona)]
    longest = max(memories, key=len)  # past the 256-token truncation, where the two could part ways
    return [*memories[:6], longest, core_profile_text(persona), *QUERIES]


@pytest.fixture(scope="module")
def torch_vectors(texts) -> np.ndarray:
    return TorchEmbedder().embed(texts)


def test_onnx_vectors_agree_with_torch_on_memories_and_queries(texts, torch_vectors):
    embedder = Embedder()
    vectors = embedder.embed(texts)
    assert embedder.id == EMBEDDER_ID == embedder_id(DEFAULT_VARIANT)
    assert vectors.shape == (len(texts), EMBEDDING_DIM) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    cosine = np.sum(vectors * torch_vectors, axis=1)
    assert cosine.min() >= AGREEMENT, dict(zip(texts, cosine.round(4), strict=True))


def test_a_texts_vector_does_not_depend_on_the_texts_embedded_with_it(texts):
    embedder = Embedder()
    texts = [*texts, "", texts[0]]  # a text twice is embedded once, and returned twice
    together = embedder.embed(texts)
    assert np.array_equal(together[0], together[-1])
    for row in (0, texts.index(max(texts, key=len)), len(texts) - 2):
        alone = np.asarray(embedder.embed_query(texts[row]), dtype=np.float32)
        assert float(alone @ together[row]) > 0.99999


def test_a_missing_onnx_file_is_converted_on_first_use_with_one_line_on_stderr(tmp_path):
    ensure_onnx(DEFAULT_VARIANT)  # the usual place has it; the empty model dir below does not
    script = "from personas.embedder import Embedder; print(Embedder().embed(['a first use']).shape)"
    env = {**os.environ, "TWINSIM_MODEL_DIR": str(tmp_path / "models")}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"(1, {EMBEDDING_DIM})"
    notes = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(notes) == 1 and "converting all-MiniLM-L6-v2 to ONNX" in notes[0] and "personas.onnx_export" in notes[0]
    made = {path.name for path in (tmp_path / "models").iterdir()}
    assert made == {onnx_path("fp32").name, onnx_path(DEFAULT_VARIANT).name}  # no partial files left
    again = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=300
    )
    assert again.returncode == 0 and again.stderr.strip() == ""  # converted once
