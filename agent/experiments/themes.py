"""Why twins did what they did: their rationales clustered into a few themes per variant and outcome group.

A rate says *that* a variant sells more; the themes say *why* in the twins' own words. Within each variant
and each outcome group (bought / left / other) the distinct rationales are embedded, clustered with
k-means (weighted by how often each rationale occurs, fixed seed), k picked by the silhouette score up to
`max_themes`. A group is kept as one theme when no split separates it clearly (best silhouette below
MIN_SILHOUETTE, or only splits that isolate a stray rationale or two). Each theme is labelled by its most
central rationale, with its most distinctive words (TF-IDF across the group's themes) beside it; each quote names
the personas who gave it, so a report can say who said it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from agent.experiments.samples import Sample

GROUPS = ("bought", "left", "other")
MIN_SILHOUETTE = 0.15  # below this the "themes" are noise in one topic; report the group as one theme
MIN_THEME_SIZE, MIN_THEME_SHARE = 2, 0.05  # a split is only kept when every theme has this many samples
LABEL_CHARS = 90
SPEAKERS_LISTED = 3  # personas named with a quote (sorted ids; `times` counts every sample that said it)
SILHOUETTE_SAMPLE = 2000  # silhouette is quadratic; estimate it on a seeded subsample beyond this


def outcome_group(sample: Sample) -> str:
    """bought beats left: a twin that bought and then closed the tab is a buyer."""
    return "bought" if sample.purchase else "left" if sample.leave else "other"


def rationale_themes(
    samples: list[Sample],
    embed: Callable[[list[str]], np.ndarray],
    *,
    max_themes: int = 5,
    per_theme: int = 3,
    seed: int = 0,
) -> dict:
    """{"variants": {variant: {group: {n, n_with_rationale, k, silhouette, themes: [...]}}}, "settings": {...}}."""
    if max_themes < 1 or per_theme < 1:
        raise ValueError(f"max_themes and per_theme must be at least 1, got {max_themes} and {per_theme}")
    texts = sorted({s.rationale.strip() for s in samples if s.rationale.strip()})
    vectors = _normalised(np.asarray(embed(texts), dtype=float)) if texts else np.zeros((0, 1))
    if len(vectors) != len(texts):
        raise ValueError(f"the embedder returned {len(vectors)} vectors for {len(texts)} texts")
    index = {t: i for i, t in enumerate(texts)}

    variants: dict[str, dict] = {}
    for sample in samples:
        variants.setdefault(sample.variant, {g: [] for g in GROUPS})[outcome_group(sample)].append(sample)
    result = {
        variant: {
            group: _themes_of(members, vectors, index, max_themes, per_theme, seed) for group, members in groups.items()
        }
        for variant, groups in variants.items()
    }
    return {
        "variants": result,
        "settings": {
            "max_themes": max_themes,
            "per_theme": per_theme,
            "seed": seed,
            "method": "k-means on sentence embeddings, k by silhouette",
            "min_silhouette": MIN_SILHOUETTE,
        },
    }


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def _themes_of(
    members: list[Sample], vectors: np.ndarray, index: dict[str, int], max_themes: int, per_theme: int, seed: int
) -> dict:
    counts = Counter(s.rationale.strip() for s in members if s.rationale.strip())
    speakers: dict[str, set[str]] = {}
    for sample in members:
        speakers.setdefault(sample.rationale.strip(), set()).add(sample.persona_id)
    distinct = sorted(counts)
    summary: dict[str, Any] = {
        "n": len(members),
        "n_with_rationale": sum(counts.values()),
        "k": 0,
        "silhouette": None,
        "themes": [],
    }
    if not distinct:
        return summary
    points = vectors[[index[t] for t in distinct]]
    weights = np.array([counts[t] for t in distinct], dtype=float)
    labels, silhouette = _cluster(points, weights, max_themes, seed)
    keywords = _distinctive_words(distinct, weights, labels)
    total = weights.sum()
    themes = []
    for cluster in sorted(set(labels), key=lambda c: (-weights[labels == c].sum(), c)):
        mask = labels == cluster
        members_idx = np.flatnonzero(mask)
        centre = np.average(points[mask], axis=0, weights=weights[mask])
        closest = members_idx[np.argsort(-(points[mask] @ centre), kind="stable")]
        representatives = [distinct[i] for i in closest[:per_theme]]
        size = int(weights[mask].sum())
        quotes = [
            {"text": text, "times": counts[text], "persona_ids": sorted(speakers[text])[:SPEAKERS_LISTED]}
            for text in representatives
        ]
        themes.append(
            {
                "size": size,
                "share": float(size / total),
                "label": _shorten(representatives[0]),
                "keywords": keywords.get(int(cluster), []),
                "representatives": representatives,
                "quotes": quotes,
            }
        )
    return summary | {"k": len(themes), "silhouette": silhouette, "themes": themes}


def _cluster(points: np.ndarray, weights: np.ndarray, max_themes: int, seed: int) -> tuple[np.ndarray, float | None]:
    """The k in 2..max_themes with the best silhouette among splits without tiny themes, or one cluster when no
    split separates the group clearly."""
    from sklearn.cluster import KMeans  # scikit-learn loads on the first themes, not with the server
    from sklearn.metrics import silhouette_score
    from threadpoolctl import threadpool_limits

    best_labels, best_score = np.zeros(len(points), dtype=int), None
    min_size = max(MIN_THEME_SIZE, MIN_THEME_SHARE * weights.sum())
    for k in range(2, min(max_themes, len(points) - 1) + 1):
        with threadpool_limits(1):  # tiny problems: OpenMP thread start-up costs more than the fit
            labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(points, sample_weight=weights)
        sizes = np.bincount(labels, weights=weights, minlength=k)
        if sizes.min() < min_size:  # a theme of one stray rationale is an anecdote, not a theme
            continue
        score = float(
            silhouette_score(
                points, labels, metric="cosine", random_state=seed, sample_size=min(len(points), SILHOUETTE_SAMPLE)
            )
        )
        if best_score is None or score > best_score:
            best_labels, best_score = labels, score
    if best_score is None or best_score < MIN_SILHOUETTE:
        return np.zeros(len(points), dtype=int), best_score
    return best_labels, best_score


def _distinctive_words(texts: list[str], weights: np.ndarray, labels: np.ndarray, top: int = 4) -> dict[int, list[str]]:
    """Each cluster's rationales (weighted by repetition) as one document; its top TF-IDF words among the clusters."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    clusters = sorted(set(labels.tolist()))
    try:
        counter = CountVectorizer(stop_words="english")
        term_counts = counter.fit_transform(texts)
    except ValueError:  # only stop words or no words at all
        return {}
    documents = np.vstack([weights[labels == c] @ term_counts[labels == c].toarray() for c in clusters])
    scores = TfidfTransformer(sublinear_tf=True).fit_transform(documents).toarray()
    vocabulary = counter.get_feature_names_out()
    return {
        c: [str(vocabulary[j]) for j in np.argsort(-row, kind="stable")[:top] if row[j] > 0]
        for c, row in zip(clusters, scores, strict=True)
    }


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rsplit(" ", 1)[0] + "…"
