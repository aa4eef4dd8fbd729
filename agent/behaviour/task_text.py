"""What a twin with a task types, and which option it picks from a drop-down, in the task's own words.

A task ("buy a 3-cup rice cooker under $100", "find a flight from Mumbai to New York on 21st April") says what
to search for and what to fill in; the person's behaviour model still decides whether they type at all. A
search box gets the thing the task names, without the leading verb and the constraints a search engine does
not need ("3-cup rice cooker"); a field whose label is a preposition the task uses ("From", "To") gets the phrase
after that preposition ("Mumbai", "New York"). Rules, not a model: cheap, offline and readable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from agent.behaviour.text_relevance import relevance, static_embedder, words

_LEADING = re.compile(
    r"^(?:please\s+|can you\s+|help me\s+|i\s+(?:want|need|would like|'d like)\s+to\s+|let's\s+|go\s+and\s+)*"
    r"(?:buy|purchase|order|find|search(?:\s+for)?|look\s+(?:for|up)|get|shop\s+for|browse(?:\s+for)?|show(?:\s+me)?|"
    r"check(?:\s+out)?|book|reserve|rent|add|compare|see|view|open|go\s+to|locate|track|sign\s+up\s+for|subscribe\s+to)"
    r"\b\s*",
    re.IGNORECASE,
)
_ARTICLES = frozenset({"a", "an", "the", "some", "me", "my", "any", "all"})
# Where the thing asked for ends and its constraints begin.
_CUT = re.compile(
    r"(?:\s+(?:under|below|less\s+than|cheaper\s+than|over|above|more\s+than|between|within|that|which|who|where|"
    r"whose|priced|costing|on|before|after|by|during|from|to|and\s+then|then|and\s+add|and\s+buy|if|so|sorted|"
    r"starting|departing|leaving|returning)\b|[,;.!?()]|\s+\$|\s+with\s+(?:a\s+)?(?:price|budget|rating)).*$",
    re.IGNORECASE | re.DOTALL,
)
_FIELD_PREPOSITIONS = frozenset({"from", "to", "in", "near", "at", "into", "for", "with", "on"})
_MAX_WORDS = 8


def search_terms(goal: str) -> str:
    """The thing a task asks for: 'buy a 3-cup rice cooker under $100' -> '3-cup rice cooker'."""
    rest = _LEADING.sub("", goal.strip(), count=1)
    rest = _CUT.sub("", rest).strip()
    tokens = rest.split()
    while tokens and tokens[0].lower() in _ARTICLES:
        tokens = tokens[1:]
    return " ".join(tokens[:_MAX_WORDS]) or goal.strip()[:80]


def field_value(goal: str, field_text: str) -> str | None:
    """The phrase a task gives for a field labelled by a preposition it uses ('From' -> 'Mumbai'), else None."""
    labels = [w for w in re.findall(r"[a-z]+", field_text.lower()) if w in _FIELD_PREPOSITIONS]
    rest = _LEADING.sub("", goal.strip(), count=1)  # "I want to buy ..." does not answer a "To" field
    for label in labels:
        match = re.search(rf"\b{label}\s+(.+)", rest, re.IGNORECASE | re.DOTALL)
        if match is None:
            continue
        phrase = _CUT.sub("", " " + match.group(1)).strip()
        tokens = phrase.split()
        while tokens and tokens[0].lower() in _ARTICLES:
            tokens = tokens[1:]
        if tokens:
            return " ".join(tokens[:_MAX_WORDS])
    return None


def task_text(goal: str, field_text: str = "") -> str:
    """What to type into a field toward the task: the field's own phrase when the task names one, else the thing."""
    return field_value(goal, field_text) or search_terms(goal)


def best_option(options: Sequence[str], goal: str, rng: np.random.Generator | None = None) -> str:
    """The drop-down option closest to the task: word overlap and static-embedding cosine, like element choice.
    Most likely without rng; sampled (in proportion to the softmax of the scores) with it."""
    choices = [o for o in options if o.strip()]
    if not choices:
        raise ValueError("no option to choose from")
    embedder = static_embedder()
    scores = relevance(goal, [words(o) for o in choices], embedder.embed(choices) if embedder is not None else None)
    if rng is None:
        return choices[int(np.argmax(scores))]
    probabilities = np.exp(scores - scores.max())
    return choices[int(rng.choice(len(choices), p=probabilities / probabilities.sum()))]
