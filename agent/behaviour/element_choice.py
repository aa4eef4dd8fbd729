"""Which element on the page, once the click type (or typing) is chosen.

A conditional-logit score per candidate of that type: relevance to what the person is after (the
session's last query, the product in view, the persona's recalled memories; static-embedding cosine
and word overlap), prominence (rank within its type, in document order), repeating the last element
(review-image "next", pagination), returning to an element used before, and the appeal of the product
the element belongs to for this person, relative to the other products on the page (price against the
page and the person's budget, deal, stars, reviews, delivery, sponsored label: page_terms.py). Default
weights are set by hand; `twinsim calibrate` on the full OPeRA release (pages included) fits them to real
choices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import INPUT
from agent.behaviour.page_index import PageIndex
from agent.behaviour.text_relevance import EMBEDDING_WEIGHT, OVERLAP_WEIGHT, overlap, static_embedder, words
from agent.page.candidate import Candidate

ELEMENT_FEATURES: tuple[str, ...] = ("relevance", "overlap", "position", "same_as_last", "used_before", "appeal")
DEFAULT_WEIGHTS: dict[str, float] = {
    "relevance": EMBEDDING_WEIGHT,
    "overlap": OVERLAP_WEIGHT,
    "position": 0.8,
    "same_as_last": 1.5,
    "used_before": 0.5,
    "appeal": 1.0,  # the product's appeal is in log-odds of buying it: weight 1 chooses in proportion to it
}


_TEXT_FEATURES = frozenset({"relevance", "overlap"})


@dataclass(frozen=True)
class Intent:
    """What the person is after right now, as text (for overlap) and as a unit vector (for relevance)."""

    query: str
    words: frozenset[str]
    vector: np.ndarray | None
    sources: tuple[str, ...] = field(default_factory=tuple)
    emphasis: float = 1.0  # how much more the text signals count than their weights say (a task: TASK_EMPHASIS)
    has_task: bool = False  # a task leads: controls also say what their product's title says


TASK_WEIGHT = 1.5  # a task given in words outweighs the last query (1.0), the page title (0.6) and memories (0.4)
# A person with a goal scans the page for it: with a task, relevance and word overlap count 3x against prominence,
# repetition and appeal. Set by hand (OPeRA's sessions carry no task to fit it on): on the sample results page it
# lets a task naming the ninth product pick it over the first, where the unweighted score does not.
TASK_EMPHASIS = 3.0


def build_intent(query: str, page_title: str, memory_texts: Sequence[str], task: str | None = None) -> Intent:
    """What the person is after. With a task, the task leads: its words replace the page title's in the overlap
    signal (the title says where the person is, the task where they are going) and it weighs most in the vector."""
    embedder = static_embedder()
    sources = tuple(s for s in (task, query, page_title) if s) + tuple(memory_texts[:3])
    vector = None
    if embedder is not None and sources:
        total = np.zeros(embedder.dim, dtype=np.float32)
        if task:
            total += TASK_WEIGHT * embedder.embed_one(task[:600])
        if query:
            total += 1.0 * embedder.embed_one(query)
        if page_title:
            total += 0.6 * embedder.embed_one(page_title)
        for text in memory_texts[:3]:
            total += 0.4 / max(1, min(3, len(memory_texts))) * embedder.embed_one(text[:300])
        norm = float(np.linalg.norm(total))
        vector = total / norm if norm > 0 else None
    wanted = words(f"{task} {query}") if task else words(f"{query} {page_title}")
    return Intent(
        query=query,
        words=wanted,
        vector=vector,
        sources=sources,
        emphasis=TASK_EMPHASIS if task else 1.0,
        has_task=bool(task),
    )


@dataclass(frozen=True)
class ElementChoice:
    candidate: Candidate
    probability: float
    drivers: dict[str, float]  # the chosen candidate's feature values


def product_key(name: str) -> str:
    """The product an element belongs to: its name without the last part
    ('search_results.<slug>.product_price' -> 'search_results.<slug>')."""
    return name.rsplit(".", 1)[0] if "." in name else name


def element_features(
    index: PageIndex,
    members: np.ndarray,
    intent: Intent,
    past: Sequence[PastAction],
    appeal_by_name: Mapping[str, float] | None = None,
) -> np.ndarray:
    """(len(members), len(ELEMENT_FEATURES)) feature matrix. `appeal_by_name`: a product's appeal
    relative to the page by the names of its link and buy buttons (page_terms.PageEffect)."""
    out = np.zeros((len(members), len(ELEMENT_FEATURES)))
    if intent.vector is not None and index.embeddings is not None:
        out[:, 0] = index.embeddings[members] @ intent.vector
    out[:, 1] = [overlap(intent.words, index.word_sets[i]) for i in members]
    if intent.has_task and index.product_titles:
        _product_relevance(out, index, members, intent)
    out[:, 2] = index.position_score[members]
    last_name = past[-1].name if past else None
    used = {item.name for item in past[:-1] if item.name}
    names = [index.candidates[i].name for i in members]
    out[:, 3] = [1.0 if name == last_name else 0.0 for name in names]
    out[:, 4] = [1.0 if name in used else 0.0 for name in names]
    if appeal_by_name:
        by_product = {product_key(name): value for name, value in appeal_by_name.items()}
        out[:, 5] = [appeal_by_name.get(name, by_product.get(product_key(name), 0.0)) for name in names]
    return out


def _product_relevance(out: np.ndarray, index: PageIndex, members: np.ndarray, intent: Intent) -> None:
    """With a task, a control says what its product's title says: a tile's "Add to cart" is as relevant to "buy
    the water bottle" as the bottle's title (the better of its own text and its product's title)."""
    rows = [(row, index.product_titles[i]) for row, i in enumerate(members) if index.product_titles[i]]
    if not rows:
        return
    titles = [title for _, title in rows]
    embedder = static_embedder()
    similar = embedder.embed(titles) @ intent.vector if embedder is not None and intent.vector is not None else None
    for k, (row, title) in enumerate(rows):
        out[row, 1] = max(out[row, 1], overlap(intent.words, words(title)))
        if similar is not None:
            out[row, 0] = max(out[row, 0], float(similar[k]))


def choose_element(
    index: PageIndex,
    label: str,
    intent: Intent,
    past: Sequence[PastAction],
    weights: dict[str, float],
    appeal_by_name: Mapping[str, float] | None = None,
    rng: np.random.Generator | None = None,
    excluded: frozenset[str] = frozenset(),
) -> ElementChoice:
    """The most likely candidate of `label` (rng None) or one drawn from the softmax of the scores.
    `excluded`: names that cannot be chosen (the buy buttons of an unavailable product)."""
    members = index.group(label)
    if excluded:
        members = np.asarray([i for i in members if index.candidates[i].name not in excluded], dtype=int)
    if len(members) == 0:
        raise ValueError(f"the page has no candidate for '{label}'")
    if label == INPUT:  # typing goes to the search box when there is one
        searchable = [i for i in members if "search" in index.candidates[i].name]
        if searchable:
            members = np.asarray(searchable[:1])
    if label == "search" and past and past[-1].label == "search" and past[-1].name:
        # The query was just submitted and its results are on the page: a second search click goes to the
        # box, to refine the query, not to the same button again.
        boxes = [
            i for i in members if index.candidates[i].kind == "input" and index.candidates[i].name != past[-1].name
        ]
        if boxes and not _is_box(past[-1].name, index):
            members = np.asarray(boxes)
    features = element_features(index, members, intent, past, appeal_by_name)
    vector = np.asarray(
        [
            weights.get(name, DEFAULT_WEIGHTS[name]) * (intent.emphasis if name in _TEXT_FEATURES else 1.0)
            for name in ELEMENT_FEATURES
        ]
    )
    scores = features @ vector
    probabilities = np.exp(scores - scores.max())
    probabilities /= probabilities.sum()
    pick = int(np.argmax(scores)) if rng is None else int(rng.choice(len(members), p=probabilities))
    return ElementChoice(
        candidate=index.candidates[members[pick]],
        probability=float(probabilities[pick]),
        drivers={name: round(float(v), 3) for name, v in zip(ELEMENT_FEATURES, features[pick], strict=True) if v},
    )


def _is_box(name: str, index: PageIndex) -> bool:
    """Whether the element last clicked is a text box (on this page, else by its name)."""
    for candidate in index.candidates:
        if candidate.name == name:
            return candidate.kind == "input"
    return name.endswith("search_input")
