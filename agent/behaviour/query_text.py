"""What a twin types into a search box.

People mostly re-type or refine what they searched before in the session (OPeRA sessions show long
chains of input -> search -> input), so the most likely text is the last query; a first query comes
from what is in view (the product or page title) or from what the person said they shop for. Sampling
varies the query the way people do: an earlier query, or the last one refined by a word that fits the
person (price-conscious people add "cheap", quality-minded people "best", ...).
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import INPUT

_SHOPPING_FOR = re.compile(
    r"\b(?:shopping for|looking for|search(?:ed|ing)? for|need(?:ed|s)?|buy(?:ing)?|bought|order(?:ed|ing)?|"
    r"want(?:ed|s)? to (?:buy|get))\s+(?:a |an |some |new |more |the )?([a-z][a-z0-9 \-]{2,40}?)(?=[.,;:!?)]|\s+(?:for|from|on|at|and|because|since|when|so|that|which)\b|$)",
    re.IGNORECASE,
)
_STOP = {"it", "them", "things", "stuff", "something", "anything", "everything", "products", "items", "online", "amazon"}
# A phrase starting with one of these is a way of shopping ("buying the first product that ..."), not a thing.
_NOT_A_THING = {"first", "whatever", "what", "only", "just", "cheaper", "cheapest", "expensive", "quickly", "new brand",
                "brands", "product", "products", "items", "things", "it", "them", "too", "more", "less", "one"}
REFINEMENTS: dict[str, str] = {
    "price_consciousness": "cheap",
    "quality": "best",
    "brand_consciousness": "premium",
    "delivery": "fast shipping",
    "review_engagement": "top rated",
    "novelty": "new",
}
FALLBACK_QUERY = "best sellers"


def previous_queries(past: Sequence[PastAction]) -> list[str]:
    return [item.text.strip() for item in past if item.label == INPUT and item.text and item.text.strip()]


def interests(texts: Sequence[str]) -> list[str]:
    """Things a person says they shop for, in order of appearance ("shopping for running shoes" -> "running shoes")."""
    found: list[str] = []
    for text in texts:
        for match in _SHOPPING_FOR.finditer(text or ""):
            phrase = " ".join(match.group(1).lower().split()[:4]).strip(" -")
            if phrase.split(" ", 1)[0] in _NOT_A_THING:
                continue
            if phrase and phrase not in _STOP and phrase not in found:
                found.append(phrase)
    return found


def first_query(page_title: str | None, memory_texts: Sequence[str]) -> str:
    """A first search: the thing in view, else something the person shops for, else a generic one."""
    if page_title:
        words = re.sub(r"[^A-Za-z0-9 ]+", " ", page_title).split()
        words = [w for w in words if w.lower() not in {"amazon", "com"}]
        if words:
            return " ".join(words[:4]).lower()
    wanted = interests(memory_texts)
    return wanted[0] if wanted else FALLBACK_QUERY


def query_text(
    past: Sequence[PastAction],
    page_title: str | None,
    memory_texts: Sequence[str],
    preferences: dict[str, float],
    rng: np.random.Generator | None = None,
) -> tuple[str, str]:
    """(text, why). Most likely (rng None): the last query. Sampling: vary it as people do."""
    queries = previous_queries(past)
    if rng is None:
        if queries:
            return queries[-1], "searching again for what I looked for before"
        return first_query(page_title, memory_texts), "starting my search"
    if not queries:
        options = interests(memory_texts) or [first_query(page_title, memory_texts)]
        return options[int(rng.integers(len(options)))], "searching for something I came to buy"
    draw = rng.random()
    if draw < 0.5:
        return queries[-1], "searching again for what I looked for before"
    if draw < 0.7 and len(queries) > 1:
        return queries[int(rng.integers(len(queries)))], "going back to an earlier search"
    liked = [REFINEMENTS[c] for c, v in sorted(preferences.items()) if v > 0 and c in REFINEMENTS]
    word = liked[int(rng.integers(len(liked)))] if liked else "best"
    base = queries[-1]
    refined = base if word in base.lower() else f"{word} {base}"
    return refined, f"narrowing my search to {word} options"
