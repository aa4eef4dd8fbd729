"""Scoring the OPeRA survey: the 12 shopping statements (Likert 1..5) and the IPIP-50 Big Five.

The survey, its statements and the IPIP-50 scoring key are those of OPeRA (Wang et al. 2025,
"OPeRA: A Dataset of Observation, Persona, Rationale, and Action ...", arXiv 2506.05606, CC-BY-4.0).
The IPIP-50 items and key are Goldberg's public-domain Big-Five Factor Markers (ipip.ori.org).

Why score the raw items ourselves: the dataset's own Intellect sum keys item 20 ("Am not interested in
abstract ideas") as + keyed; we use the standard key and keep the dataset's figure beside ours.
Functions raise ValueError with the offending key or answer; readers add the file and row.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from personas.persona import BIG_FIVE_TRAITS, PREFERENCE_CONSTRUCTS, BigFive

# ---- the 12 shopping statements ------------------------------------------------------------------

# The statements as the survey JSON spells them, in survey order (aligned with PREFERENCE_CONSTRUCTS).
SHOPPING_STATEMENTS: tuple[str, ...] = (
    "I tend to shop more during holidays.",
    "Online Ads attract my attention and are a good source of information.",
    "I usually do a lot research (e.g. reading online reviews) before making purchase.",
    "I prioritize delivery speed and delivery fee of the product.",
    "Getting high-quality online products is very important for me.",
    "The more expensive online product brands are usually my choice.",
    "The more I learn about online products, the harder it seems to choose the best.",
    "I shop quickly for online products, buying the first product or brand I find that seems good enough.",
    "Once I find a brand I like, I stick with it.",
    "I would buy a new or different brand of product just to see what it is like.",
    "I enjoy shopping for online products just for the fun of it.",
    "I look carefully to find the best value for money when shopping online.",
)
assert len(SHOPPING_STATEMENTS) == len(PREFERENCE_CONSTRUCTS)

LIKERT_ANSWERS: dict[str, int] = {
    "strongly disagree": 1,
    "somewhat disagree": 2,
    "neither agree or disagree": 3,
    "neither agree nor disagree": 3,
    "somewhat agree": 4,
    "strongly agree": 5,
}

# raw_survey keys: "To what extent do you agree: - 9.Once I find a brand I like, I stick with it."
_STATEMENT_KEY_RE = re.compile(r"^\s*to what extent do you agree\s*:?\s*-\s*(\d{1,2})\s*\.", re.IGNORECASE)


def _normalise(text: str) -> str:
    """Lower case, words only: answers and statements arrive with varying case, spacing and punctuation."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


_STATEMENT_INDEX: dict[str, str] = {
    _normalise(s): c for s, c in zip(SHOPPING_STATEMENTS, PREFERENCE_CONSTRUCTS, strict=True)
}


def parse_likert(answer: Any) -> int | None:
    """'Somewhat agree' -> 4 (tolerant of case and spacing; a number 1..5 passes); empty -> None."""
    if answer is None:
        return None
    if isinstance(answer, int) and not isinstance(answer, bool):
        if 1 <= answer <= 5:
            return answer
        raise ValueError(f"Likert answer {answer} is outside 1..5")
    text = _normalise(str(answer))
    if not text:
        return None
    if text.isdigit() and 1 <= int(text) <= 5:
        return int(text)
    if text in LIKERT_ANSWERS:
        return LIKERT_ANSWERS[text]
    raise ValueError(f"unknown Likert answer {answer!r}; expected one of {sorted(set(LIKERT_ANSWERS))}")


def statement_construct(key: str) -> str | None:
    """The construct a statement measures: by its number in a raw_survey key, else by its survey text."""
    numbered = _STATEMENT_KEY_RE.match(key)
    if numbered:
        number = int(numbered.group(1))
        if not 1 <= number <= len(PREFERENCE_CONSTRUCTS):
            raise ValueError(f"shopping statement number {number} is outside 1..12 in {key!r}")
        return PREFERENCE_CONSTRUCTS[number - 1]
    return _STATEMENT_INDEX.get(_normalise(key))


def preferences_from_statements(statements: Mapping[str, Any]) -> dict[str, int]:
    """Survey JSON {statement text: answer} -> {construct: 1..5}; unknown statements are an error."""
    preferences: dict[str, int] = {}
    for statement, answer in statements.items():
        construct = statement_construct(statement)
        if construct is None:
            raise ValueError(f"unknown shopping statement {statement!r}")
        try:
            score = parse_likert(answer)
        except ValueError as error:
            raise ValueError(f"{statement!r}: {error}") from None
        if score is not None:
            preferences[construct] = score
    return preferences


def preferences_from_raw_survey(raw_survey: Mapping[str, Any]) -> dict[str, int]:
    """raw_survey {"To what extent do you agree: - N. ...": answer} -> {construct: 1..5}; other keys ignored."""
    preferences: dict[str, int] = {}
    for key, answer in raw_survey.items():
        if not _STATEMENT_KEY_RE.match(key):
            continue
        construct = statement_construct(key)
        try:
            score = parse_likert(answer)
        except ValueError as error:
            raise ValueError(f"{key!r}: {error}") from None
        if construct is not None and score is not None:
            preferences[construct] = score
    return preferences


# ---- IPIP-50 Big Five ----------------------------------------------------------------------------

IPIP_ANSWERS: dict[str, int] = {
    "very inaccurate": 1,
    "moderately inaccurate": 2,
    "neither accurate nor inaccurate": 3,
    "neither inaccurate nor accurate": 3,
    "neither accurate or inaccurate": 3,
    "moderately accurate": 4,
    "very accurate": 5,
}

# The published key, items 1..50 in order: (factor, sign). N is neuroticism; O is reported as Intellect.
_KEY_ROWS = (
    "E+ A- C+ N+ O+",
    "E- A+ C- N- O-",
    "E+ A- C+ N+ O+",
    "E- A+ C- N- O-",
    "E+ A- C+ N+ O+",
    "E- A+ C- N+ O-",
    "E+ A- C+ N+ O+",
    "E- A+ C- N+ O+",
    "E+ A+ C+ N+ O+",
    "E- A+ C+ N+ O+",
)
IPIP_KEY: tuple[tuple[str, int], ...] = tuple(
    (code[0], 1 if code[1] == "+" else -1) for row in _KEY_ROWS for code in row.split()
)
assert len(IPIP_KEY) == 50

# Factor letter -> the trait name the survey reports. Neuroticism is reported reversed, as Emotional Stability.
_FACTOR_TRAIT = {
    "E": "extraversion",
    "A": "agreeableness",
    "C": "conscientiousness",
    "N": "emotional_stability",
    "O": "intellect",
}
_REVERSED_FACTORS = {"N"}
ITEMS_PER_TRAIT = 10
MIN_ITEMS_PER_TRAIT = 7

# "Please read the statements carefully and indicate ... - 12. Insult people"
_IPIP_KEY_RE = re.compile(r"^\s*please read the statements\b.*?-\s*(\d{1,2})\s*\.", re.IGNORECASE | re.DOTALL)
# The dataset's own sums: "1. Extraversion": "20"
_DATASET_SUM_RE = re.compile(
    r"^\s*\d\s*\.\s*(extraversion|agreeableness|conscientiousness|emotional stability|intellect)\s*$", re.IGNORECASE
)

_TRAIT_ALIASES = {
    "extraversion": "extraversion",
    "extroversion": "extraversion",
    "agreeableness": "agreeableness",
    "conscientiousness": "conscientiousness",
    "emotional_stability": "emotional_stability",
    "stability": "emotional_stability",
    "intellect": "intellect",
    "openness": "intellect",
    "imagination": "intellect",
    "intellect_imagination": "intellect",
    "openness_to_experience": "intellect",
}

_LEVELS = {
    "extremely low": "Extremely low",
    "low": "Low",
    "medium": "Medium",
    "high": "High",
    "extremely high": "Extremely high",
}


def trait_name(label: str) -> str:
    """'Emotional Stability' -> 'emotional_stability' ('Openness' -> 'intellect'); unknown names are an error."""
    key = "_".join(re.findall(r"[a-z]+", str(label).lower()))
    if key in _TRAIT_ALIASES:
        return _TRAIT_ALIASES[key]
    raise ValueError(f"unknown Big Five trait {label!r}; expected one of {list(BIG_FIVE_TRAITS)}")


def parse_level(level: Any) -> str | None:
    """'extremely  HIGH' -> 'Extremely high'; empty -> None."""
    text = " ".join(str(level or "").lower().split())
    if not text:
        return None
    if text in _LEVELS:
        return _LEVELS[text]
    raise ValueError(f"unknown Big Five level {level!r}; expected one of {list(_LEVELS.values())}")


def parse_ipip_answer(answer: Any) -> int | None:
    """'Moderately Accurate' -> 4 (tolerant of case and spacing); empty -> None."""
    text = _normalise(str(answer or ""))
    if not text:
        return None
    if text in IPIP_ANSWERS:
        return IPIP_ANSWERS[text]
    raise ValueError(f"unknown IPIP answer {answer!r}; expected 'Very Inaccurate' .. 'Very Accurate'")


def ipip_item_number(key: str) -> int | None:
    """The item number (1..50) of a raw_survey IPIP key, or None for any other key."""
    match = _IPIP_KEY_RE.match(key)
    if not match:
        return None
    number = int(match.group(1))
    if not 1 <= number <= len(IPIP_KEY):
        raise ValueError(f"IPIP item number {number} is outside 1..50 in {key!r}")
    return number


def ipip_item_answers(raw_survey: Mapping[str, Any]) -> dict[int, int]:
    """{item number: 1..5} for every answered IPIP item of a raw_survey."""
    answers: dict[int, int] = {}
    for key, answer in raw_survey.items():
        number = ipip_item_number(key)
        if number is None:
            continue
        try:
            score = parse_ipip_answer(answer)
        except ValueError as error:
            raise ValueError(f"{key!r}: {error}") from None
        if score is not None:
            answers[number] = score
    return answers


def score_ipip50(answers: Mapping[int, int]) -> dict[str, float]:
    """Trait sums (10..50) by the standard key, Emotional Stability = 60 - N.

    A trait with all 10 items is their sum; with 7..9 items, their mean times 10 (so scales stay
    comparable); with fewer, it is left out rather than guessed.
    """
    keyed: dict[str, list[int]] = {trait: [] for trait in BIG_FIVE_TRAITS}
    for number, score in answers.items():
        factor, sign = IPIP_KEY[number - 1]
        if factor in _REVERSED_FACTORS:  # scoring N items reversed gives Emotional Stability directly
            sign = -sign
        keyed[_FACTOR_TRAIT[factor]].append(score if sign > 0 else 6 - score)
    scores: dict[str, float] = {}
    for trait, items in keyed.items():
        if len(items) == ITEMS_PER_TRAIT:
            scores[trait] = float(sum(items))
        elif len(items) >= MIN_ITEMS_PER_TRAIT:
            scores[trait] = round(sum(items) / len(items) * ITEMS_PER_TRAIT, 2)
    return scores


def dataset_sums(raw_survey: Mapping[str, Any]) -> dict[str, float]:
    """The dataset's own trait sums ("1. Extraversion": "20" ...), kept beside ours."""
    sums: dict[str, float] = {}
    for key, value in raw_survey.items():
        match = _DATASET_SUM_RE.match(key)
        if not match or value in (None, ""):
            continue
        try:
            sums[trait_name(match.group(1))] = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{key!r}: trait sum {value!r} is not a number") from None
    return sums


def levels_from_survey(big_five_scores: Mapping[str, Any]) -> dict[str, str]:
    """Survey JSON "Big Five Scores" {"Emotional Stability": "Medium", ...} -> {trait: level}."""
    levels: dict[str, str] = {}
    for label, level in big_five_scores.items():
        parsed = parse_level(level)
        if parsed is not None:
            levels[trait_name(label)] = parsed
    return levels


def big_five(raw_survey: Mapping[str, Any] | None = None, reported_levels: Mapping[str, Any] | None = None) -> BigFive:
    """IPIP-50 sums when the raw items allow (method "ipip50"), else the reported levels; levels kept either way."""
    raw_survey = raw_survey or {}
    scores = score_ipip50(ipip_item_answers(raw_survey))
    levels = levels_from_survey(reported_levels or {})
    method = "ipip50" if scores else ("reported_levels" if levels else "none")
    return BigFive(scores=scores, levels=levels, method=method, dataset_sums=dataset_sums(raw_survey))
