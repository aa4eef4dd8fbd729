"""Everything about a page that the embedded brain needs, computed once per Observation and cached.

A population of twins looks at the same page thousands of times; grouping candidates by click type,
their word sets and static embeddings are computed on the first prediction and reused (keyed
by the Observation object itself, which is immutable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agent.behaviour.labels import INPUT, LABEL_INDEX, LABELS, TERMINATE
from agent.behaviour.text_relevance import static_embedder, words
from agent.page.candidate import Candidate
from agent.page.observation import Observation
from agent.per_page_cache import PerObservation

_CACHE_SIZE = 128
# Boxes a twin's typed text (a search query) does not go into: it clicks them, as any element, but never types.
NOT_A_QUERY = frozenset(
    {"email", "password", "tel", "number", "date", "datetime-local", "month", "week", "time", "url"}
)


@dataclass(frozen=True)
class PageIndex:
    candidates: tuple[Candidate, ...]
    groups: dict[str, np.ndarray]  # label -> candidate indices in document order
    word_sets: tuple[frozenset[str], ...]
    embeddings: np.ndarray | None  # (n, dim) unit vectors, None without the embedder
    position_score: np.ndarray  # -log1p(rank of the candidate within its group)
    allowed: np.ndarray  # over labels.LABELS: the page offers this label
    product_titles: tuple[str, ...] = ()  # per candidate: the title of the product it buys or opens, else ""

    def group(self, label: str) -> np.ndarray:
        return self.groups.get(label, np.zeros(0, dtype=int))


def candidate_text(candidate: Candidate) -> str:
    """The visible text, else the name's last meaningful parts made readable."""
    if candidate.text:
        return candidate.text
    parts = [p for p in candidate.name.split(".") if p]
    return " ".join(parts[-2:]).replace("_", " ")


def _takes_a_query(candidate: Candidate) -> bool:
    return candidate.kind == "input" and candidate.input_type not in NOT_A_QUERY


def build_index(observation: Observation) -> PageIndex:
    candidates = observation.candidates
    grouped: dict[str, list[int]] = {}
    for i, candidate in enumerate(candidates):
        label = INPUT if _takes_a_query(candidate) else candidate.click_type
        if label not in LABEL_INDEX or label == TERMINATE:
            label = "other"
        grouped.setdefault(label, []).append(i)
    position_score = np.zeros(len(candidates))
    for indices in grouped.values():
        position_score[indices] = [-math.log1p(rank) for rank in range(len(indices))]
    # A text box is also clicked (OPeRA logs a click into the search box as a "search" click): it joins
    # its click type's group too, keeping the position it has among the boxes.
    for i, candidate in enumerate(candidates):
        if (
            _takes_a_query(candidate)
            and candidate.click_type in LABEL_INDEX
            and candidate.click_type not in (INPUT, TERMINATE)
        ):
            grouped.setdefault(candidate.click_type, []).append(i)
    groups = {label: np.asarray(sorted(indices), dtype=int) for label, indices in grouped.items()}
    texts = [candidate_text(c) for c in candidates]
    embedder = static_embedder()
    allowed = np.zeros(len(LABELS), dtype=bool)
    for label in groups:
        allowed[LABEL_INDEX[label]] = True
    allowed[LABEL_INDEX[TERMINATE]] = True
    owner = {
        name: product.title
        for product in observation.facts.products
        for name in (*product.buy_names, product.name)
        if name and product.title
    }
    return PageIndex(
        product_titles=tuple(owner.get(c.name, "") for c in candidates),
        candidates=candidates,
        groups=groups,
        word_sets=tuple(words(t) for t in texts),
        embeddings=embedder.embed(texts) if embedder is not None and texts else None,
        position_score=position_score,
        allowed=allowed,
    )


page_index = PerObservation(build_index, _CACHE_SIZE)
"""The cached index of this very Observation object (built on first use)."""
