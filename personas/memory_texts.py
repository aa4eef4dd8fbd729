"""What a twin remembers about itself: a persona turned into first-person memory texts.

The memory store embeds each text separately, so each one says a single thing in words a page or a
question will resemble ("I read reviews before I buy", not "review_engagement=5"). `core_profile_text`
is the short summary every prompt and rationale carries verbatim. Survey statements and interview
formats follow OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0).
"""

from __future__ import annotations

import re
from typing import Literal

from personas.interview_passages import interview_passages, transcript_passages
from personas.persona import BIG_FIVE_TRAITS, PREFERENCE_CONSTRUCTS, Persona

MemoryTextKind = Literal["profile", "preference", "personality", "interview", "transcript"]

CORE_PROFILE_MAX_CHARS = 1200

# Each shopping statement in the first person, completing "I <agreement> that ...".
PREFERENCE_CLAUSES: dict[str, str] = {
    "seasonality": "I tend to shop more during holidays, such as Black Friday and holiday sales",
    "ad_trust": "online ads attract my attention and are a good source of information",
    "review_engagement": "I do a lot of research, such as reading reviews, before I buy",
    "delivery": "I prioritize delivery speed and delivery fees when I choose a product",
    "quality": "getting high-quality products online is very important to me",
    "brand_consciousness": "the more expensive brands are usually my choice",
    "over_choice_confusion": "the more I learn about products, the harder it seems to choose the best",
    "impulsiveness": "I shop quickly, buying the first product or brand I find that seems good enough",
    "brand_loyalty": "once I find a brand I like, I stick with it",
    "novelty": "I would buy a new or different brand just to see what it is like",
    "recreational": "I enjoy shopping online just for the fun of it",
    "price_consciousness": "I look carefully to find the best value for money when shopping online",
}
# Short names of the same statements, for the compact profile.
PREFERENCE_PHRASES: dict[str, str] = {
    "seasonality": "shopping more in holiday sales",
    "ad_trust": "trusting online ads",
    "review_engagement": "researching and reading reviews",
    "delivery": "fast, cheap delivery",
    "quality": "high quality",
    "brand_consciousness": "expensive brands",
    "over_choice_confusion": "feeling overwhelmed by choice",
    "impulsiveness": "buying the first good-enough product",
    "brand_loyalty": "sticking with brands I like",
    "novelty": "trying new brands",
    "recreational": "shopping for fun",
    "price_consciousness": "the best value for money",
}
AGREEMENT = {
    1: "strongly disagree",
    2: "somewhat disagree",
    3: "neither agree nor disagree",
    4: "somewhat agree",
    5: "strongly agree",
}

TRAIT_WORDS = {
    "extraversion": "extraversion",
    "agreeableness": "agreeableness",
    "conscientiousness": "conscientiousness",
    "emotional_stability": "emotional stability",
    "intellect": "intellect (openness to ideas)",
}
# (high, middle, low) descriptions in plain words.
TRAIT_DESCRIPTIONS: dict[str, tuple[str, str, str]] = {
    "extraversion": (
        "I am outgoing and talkative and get energy from being around people",
        "I am neither especially outgoing nor especially reserved",
        "I am reserved and quiet, and prefer my own company to being the centre of attention",
    ),
    "agreeableness": (
        "I am warm and considerate, and I care about other people's feelings",
        "I am as considerate as most people, without being a pushover",
        "I am blunt and sceptical, and I look after my own interests first",
    ),
    "conscientiousness": (
        "I am organised and careful, and I pay attention to details and plans",
        "I am reasonably organised, though not always by the book",
        "I am spontaneous and flexible rather than organised, and sometimes careless",
    ),
    "emotional_stability": (
        "I am calm and even-tempered, and I rarely get stressed",
        "I am usually calm, though I do get stressed or upset now and then",
        "I get stressed, worried or upset easily, and my mood changes a lot",
    ),
    "intellect": (
        "I am curious and imaginative, and I enjoy ideas and learning new things",
        "I am open to new ideas when they are practical",
        "I am practical and down to earth, and prefer the familiar to the abstract",
    ),
}
_LEVEL_WORDS = {
    "Extremely low": "very low",
    "Low": "low",
    "Medium": "moderate",
    "High": "high",
    "Extremely high": "very high",
}


# ---- profile -------------------------------------------------------------------------------------


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _age_phrase(age: str) -> str:
    """'25-34 years old' -> '25-34 year old'; '35' -> '35 year old'."""
    age = re.sub(r"\s*years?\s*old\s*$", "", age.strip(), flags=re.IGNORECASE)
    return f"{age} year old"


def _simple_gender(gender: str | None) -> str | None:
    """'Female' -> 'female'; answers that are not one word ('Prefer not to say') are not put in a phrase."""
    return gender.strip().lower() if gender and re.fullmatch(r"[A-Za-z-]+", gender.strip()) else None


def _identity_fact(persona: Persona) -> str | None:
    """'I am a 25-34 year old female living in Blacksburg.'"""
    demo = persona.demographics
    gender = _simple_gender(demo.gender)
    who = " ".join(part for part in (_age_phrase(demo.age) if demo.age else None, gender) if part)
    fact = None
    if who:
        article = "an" if who[:1] in "aeiou8" or who.startswith(("11", "18")) else "a"
        fact = f"I am {article} {who}" + (f" living in {demo.city}." if demo.city else ".")
    elif demo.city:
        fact = f"I live in {demo.city}."
    if demo.gender and not gender:
        fact = f"{fact or ''} My gender: {demo.gender.strip()}.".strip()
    return fact


def _spend_fact(spend: str) -> str:
    spend = spend.strip()
    if re.fullmatch(r"[\d,.]+(\s*-\s*[\d,.]+)?", spend):
        return f"I spend about ${spend} a month shopping online."
    return f"My monthly online shopping spend: {spend}."


def _living_fact(living: str) -> str:
    if re.match(r"^(live|living)\b", living, re.IGNORECASE):
        return _sentence("I " + re.sub(r"^living", "live", _lower_first(living)))
    return _sentence(f"My living situation: {living}")


def _employment_fact(employment: str) -> str:
    parts = [_lower_first(part.strip()) for part in employment.split(",") if part.strip()]
    return f"My employment status: {' and '.join(parts)}."


def _shopping_facts(persona: Persona) -> list[str]:
    """How often I shop online, what I spend, and Prime: worded alike in the memories and the core profile."""
    shop = persona.shopping
    facts = []
    if shop.frequency:
        facts.append(_sentence(f"I shop online {_lower_first(shop.frequency)}"))
    if shop.monthly_spend:
        facts.append(_spend_fact(shop.monthly_spend))
    if shop.prime is not None:
        facts.append("I have a paid Amazon Prime membership." if shop.prime else "I have no Amazon Prime membership.")
    return facts


def profile_facts(persona: Persona) -> list[str]:
    """Short first-person facts: who I am, where, and how I shop."""
    demo = persona.demographics
    facts = [f"My name is {persona.name}." if persona.name else None, _identity_fact(persona)]
    if demo.education:
        facts.append(f"My highest level of education: {demo.education}.")
    if demo.employment:
        facts.append(_employment_fact(demo.employment))
    if demo.living_situation:
        facts.append(_living_fact(demo.living_situation))
    if demo.income:
        facts.append(f"My yearly household income or stipend: {demo.income}.")
    facts += _shopping_facts(persona)
    if persona.self_description:
        facts.append("About me: " + persona.self_description.strip())
    return [fact for fact in facts if fact]


# ---- preferences and personality -----------------------------------------------------------------


def preference_sentence(construct: str, score: int) -> str:
    """5 on review_engagement -> 'I strongly agree that I do a lot of research, ... before I buy.'"""
    return f"I {AGREEMENT[score]} that {PREFERENCE_CLAUSES[construct]}."


def trait_band(persona: Persona, trait: str) -> str | None:
    """'very low' .. 'very high', from the IPIP-50 sum when known, else from the reported level."""
    if trait in persona.big_five.scores:
        unit = persona.big_five.unit(trait)
        assert unit is not None  # a trait with a score has a unit (BigFive.unit)
        bands = ((0.2, "very low"), (0.4, "low"), (0.6, "moderate"), (0.8, "high"))
        return next((word for limit, word in bands if unit < limit), "very high")
    level = persona.big_five.levels.get(trait)
    return _LEVEL_WORDS.get(level) if level else None


def trait_sentence(persona: Persona, trait: str) -> str | None:
    band = trait_band(persona, trait)
    if band is None:
        return None
    high, middle, low = TRAIT_DESCRIPTIONS[trait]
    description = high if "high" in band else low if "low" in band else middle
    score = persona.big_five.scores.get(trait)
    measured = f" ({score:g} of 50 on the IPIP-50 Big Five test)" if score is not None else ""
    return f"My {TRAIT_WORDS[trait]} is {band}{measured}: {description}."


def personality_texts(persona: Persona) -> list[str]:
    texts = [trait_sentence(persona, trait) for trait in BIG_FIVE_TRAITS]
    if persona.mbti:
        texts.append(f"My MBTI personality type is {persona.mbti}.")
    return [text for text in texts if text]


# ---- all memories and the core profile -----------------------------------------------------------


def persona_memory_texts(persona: Persona) -> list[tuple[MemoryTextKind, str]]:
    """Every memory the store embeds for this persona, as (kind, text), in a stable order."""
    texts: list[tuple[MemoryTextKind, str]] = [("profile", fact) for fact in profile_facts(persona)]
    texts += [
        ("preference", preference_sentence(c, persona.preferences[c]))
        for c in PREFERENCE_CONSTRUCTS
        if c in persona.preferences
    ]
    texts += [("personality", text) for text in personality_texts(persona)]
    if persona.interview_summary:
        texts += [("interview", passage) for passage in interview_passages(persona.interview_summary)]
    if persona.transcript:
        texts += [("transcript", passage) for passage in transcript_passages(persona.transcript)]
    return texts


def _preference_summary(persona: Persona) -> str | None:
    groups = {5: "very much me", 4: "somewhat me", 2: "not really me", 1: "not me at all"}
    parts = []
    for score, label in groups.items():
        phrases = [PREFERENCE_PHRASES[c] for c in PREFERENCE_CONSTRUCTS if persona.preferences.get(c) == score]
        if phrases:
            parts.append(f"{label}: {', '.join(phrases)}")
    return ("When I shop online - " + "; ".join(parts) + ".") if parts else None


def _personality_summary(persona: Persona) -> str | None:
    traits = [f"{band} {TRAIT_WORDS[t]}" for t in BIG_FIVE_TRAITS if (band := trait_band(persona, t))]
    if persona.mbti:
        traits.append(f"MBTI {persona.mbti}")
    return ("My personality: " + ", ".join(traits) + ".") if traits else None


def _fit(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 3)
    return text[: cut if cut > 0 else limit - 3].rstrip(" ,;:") + "..."


def core_profile_text(persona: Persona) -> str:
    """A compact first-person summary (<= CORE_PROFILE_MAX_CHARS) carried verbatim by every prompt."""
    demo = persona.demographics
    who = [f"My name is {persona.name}." if persona.name else None, _identity_fact(persona)]
    if demo.employment:
        who.append(_employment_fact(demo.employment))
    if demo.education:
        who.append(f"Education: {demo.education}.")
    if demo.income:
        who.append(f"Yearly household income or stipend: {demo.income}.")
    fixed = [
        " ".join(p for p in who if p),
        " ".join(_shopping_facts(persona)),
        _preference_summary(persona) or "",
        _personality_summary(persona) or "",
    ]
    fixed = [part for part in fixed if part]
    if persona.self_description:
        room = CORE_PROFILE_MAX_CHARS - sum(len(part) + 1 for part in fixed) - len("About me: ")
        if room >= 60:
            fixed.insert(1, "About me: " + _fit(" ".join(persona.self_description.split()), room))
    return _fit("\n".join(fixed), CORE_PROFILE_MAX_CHARS)
