"""What a twin types into a search box.

People mostly re-type or refine what they searched before in the session (OPeRA sessions show long
chains of input -> search -> input), so the most likely text is the last query; a first query comes
from what is in view (the product or page title) or from what the person said they shop for. Sampling
varies the query the way people do: an earlier query, or the last one refined by a word that fits the
person (price-conscious people add "cheap", quality-minded people "best", ...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import INPUT

_SHOPPING_FOR = re.compile(
    r"\b(?:shopping for|looking for|search(?:ed|ing)? for|need(?:ed|s)?|buy(?:ing)?|bought|order(?:ed|ing)?|"
    r"want(?:ed|s)? to (?:buy|get))\s+(?:a |an |some |new |more |the )?([a-z][a-z0-9 "
    r"\-]{2,40}?)(?=[.,;:!?)]|\s+(?:for|from|on|at|and|because|since|when|so|that|which)\b|$)",
    re.IGNORECASE,
)
# Words that are not the thing shopped for. Interview transcripts are speech ("buy things immediately",
# "buy it from the local stores instead"), so a phrase is trimmed of these at both ends and cut where a
# joining word or a preposition starts a new part; what is left must still name something.
_FILLER = frozenset(
    """
    a an the some any more most many much other another such so very really just only also too again already
    this that these those it its them they their there here i me my we our you your he she his her one ones
    of like lot lots kind sort bit couple different same good nice better best new old whatever what
    stuff thing things something anything everything item items product products brand brands store stores
    online amazon website site shopping purchase purchases reviews review advertisement ads ad history
    participant interviewer said say think know mean guess maybe probably usually directly immediately
    instead now soon later anyway right away local
""".split()  # noqa: SIM905 - a list of words reads best as words
)
_JOINING = frozenset(
    {
        "to",
        "or",
        "and",
        "but",
        "so",
        "that",
        "which",
        "again",
        "before",
        "after",
        "said",
        "because",
        "when",
        "then",
        "than",
        "if",
    }
)
_PREPOSITIONS = frozenset({"for", "from", "on", "at", "in", "with", "by", "about", "into", "without"})
# A phrase starting with one of these is a way of shopping ("buying the first product that ..."), not a thing.
_WAYS_OF_SHOPPING = frozenset({"first", "whatever", "cheaper", "cheapest", "expensive", "quickly", "new brand"})
REFINEMENTS: dict[str, str] = {
    "price_consciousness": "cheap",
    "quality": "best",
    "brand_consciousness": "premium",
    "delivery": "fast shipping",
    "review_engagement": "top rated",
    "novelty": "new",
}
FALLBACK_QUERY = "best sellers"
# Words of a page title that are the site or the kind of page, not a thing to search for.
_NOT_A_THING = frozenset(
    {
        "amazon",
        "com",
        "all",
        "products",
        "product",
        "items",
        "catalogue",
        "catalog",
        "shop",
        "store",
        "home",
        "homepage",
        "results",
        "search",
        "cart",
        "basket",
        "checkout",
        "shopping",
        "your",
        "page",
        "browse",
        "welcome",
    }
)


def previous_queries(past: Sequence[PastAction]) -> list[str]:
    return [item.text.strip() for item in past if item.label == INPUT and item.text and item.text.strip()]


def _thing(phrase: str) -> str | None:
    """The thing a "shopping for ..." phrase names, or None ("to do everything", "them in a hurry", "it from
    the local stores"): leading filler skipped, cut at the next joining word or preposition, filler trimmed."""
    words = phrase.lower().replace("-", " ").split()
    if not words or words[0] in _WAYS_OF_SHOPPING or " ".join(words[:2]) in _WAYS_OF_SHOPPING:
        return None
    start = 0
    while start < len(words) and words[start] in _FILLER:
        start += 1
    if start == len(words) or words[start] in _JOINING or words[start] in _PREPOSITIONS:
        return None
    kept: list[str] = []
    for word in words[start:]:
        if word in _JOINING or word in _PREPOSITIONS:
            break
        kept.append(word)
    while kept and kept[-1] in _FILLER:
        kept.pop()
    return " ".join(kept[:4]) if kept else None


def interests(texts: Sequence[str]) -> list[str]:
    """Things a person says they shop for, in order of appearance ("shopping for running shoes" -> "running shoes")."""
    found: list[str] = []
    for text in texts:
        for match in _SHOPPING_FOR.finditer(text or ""):
            thing = _thing(match.group(1))
            if thing and thing not in found:
                found.append(thing)
    return found


def first_query(
    page_title: str | None,
    memory_texts: Sequence[str],
    in_view: Sequence[str] = (),
    rng: np.random.Generator | None = None,
) -> str:
    """A first search: the thing in view (the page's title without the shop's name and words that name no
    thing, "All products", "Cart"), else something the person shops for, else a product shown (the first, or
    with `rng` any of them), else a generic one."""
    if page_title:
        shown = page_title.split(" | ", 1)[0]  # "Bags | Some Shop - tagline": the shop's own name follows the bar
        words = re.sub(r"[^A-Za-z0-9 ]+", " ", shown).split()
        words = [w for w in words if w.lower() not in _NOT_A_THING]
        if words:
            return " ".join(words[:4]).lower()
    wanted = interests(memory_texts)
    if wanted:
        return wanted[0]
    titles = [words for t in in_view if (words := re.sub(r"[^A-Za-z0-9 ]+", " ", t).split())]
    if not titles:
        return FALLBACK_QUERY
    return " ".join(titles[int(rng.integers(len(titles))) if rng is not None else 0][:4]).lower()


def query_text(
    past: Sequence[PastAction],
    page_title: str | None,
    memory_texts: Sequence[str],
    preferences: dict[str, float],
    rng: np.random.Generator | None = None,
    task_terms: str | None = None,
    in_view: Sequence[str] = (),
) -> tuple[str, str]:
    """(text, why). Most likely (rng None): the last query. Sampling: vary it as people do. A person given a task
    (`task_terms`: what it asks for) searches for that first; later searches refine it as any other query."""
    queries = previous_queries(past)
    if not queries and task_terms:
        return task_terms, "searching for what I came to do"
    if rng is None:
        if queries:
            return queries[-1], "searching again for what I looked for before"
        wanted = interests(memory_texts) if not past else []
        if wanted:  # at a session's start, what the person came for (as the first-step rationale says)
            return wanted[0], "searching for something I came to buy"
        return first_query(page_title, memory_texts, in_view), "starting my search"
    if not queries:
        options = interests(memory_texts) or [first_query(page_title, memory_texts, in_view, rng)]
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
