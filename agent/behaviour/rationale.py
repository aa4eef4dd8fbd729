"""A first-person rationale for the embedded brain's choice, built from what actually drove it.

Three parts: what moved me (the page facts among the decision's top drivers, page_reasons.py; else where
I am in the session, the history features that pushed this label up the most, worded with real counts; at
a session's first step, what I came to do), what I do now (the label and the element), and why that is
like me (the trait that makes those facts weigh, a recalled memory of what I said, or the persona answer
behind the choice). A survey statement is quoted only when it is agreed with and speaks of this kind of
action: quoted blindly it contradicted the decision ("I somewhat disagree that I shop quickly" while
buying). A trait that says the opposite of the action (CONTRADICTS) is never named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import INPUT, TERMINATE
from personas.memory_types import Memory

_PREV_PHRASES: dict[str, str] = {
    "START": "I've just arrived on the site",
    INPUT: "I just typed my search",
    "search": "I just ran a search",
    "review": "I've been going through the reviews",
    "product_option": "I've been trying the product's options",
    "product_link": "I just opened a product",
    "other": "I've been looking around the page",
    "purchase": "I just added something to my cart",
    "nav_bar": "I just used the top menu",
    "page_related": "I'm paging through the results",
    "quantity": "I've set the quantity",
    "suggested_term": "I picked one of the suggested searches",
    "cart_side_bar": "I'm looking at my cart",
    "cart_page_select": "I'm going over the items in my cart",
    "filter": "I've been narrowing the results down",
}
_PERSONA_PHRASES: dict[str, tuple[str, str]] = {  # feature -> (when high / agreed, when low / disagreed)
    "pref:review_engagement": ("I always read reviews before I buy", "I don't need many reviews to decide"),
    "pref:impulsiveness": ("I like to buy the first thing that is good enough", "I take my time before buying"),
    "pref:price_consciousness": ("I look hard for the best value", "price isn't my main concern"),
    "pref:quality": ("quality matters a lot to me", "I don't need the very best"),
    "pref:brand_loyalty": ("I stick with brands I know", "I don't mind switching brands"),
    "pref:brand_consciousness": ("I like premium brands", "I don't pay for the brand name"),
    "pref:delivery": ("fast, cheap delivery matters to me", "delivery speed doesn't worry me"),
    "pref:ad_trust": ("sponsored picks catch my eye", "I ignore sponsored listings"),
    "pref:over_choice_confusion": ("too many choices make it harder for me", "lots of options don't bother me"),
    "pref:recreational": ("I enjoy browsing for fun", "I shop to get things done"),
    "pref:novelty": ("I like trying new brands", "I prefer what I know"),
    "pref:seasonality": ("I shop a lot around the holidays", "I don't wait for holiday sales"),
    "prime": ("I have Prime, so shipping is easy", "I don't have Prime, so shipping costs count"),
    "frequency": ("I shop online all the time", "I don't shop online that often"),
    "big5:conscientiousness": ("I'm a careful, thorough person", "I don't overthink things"),
    "big5:extraversion": ("I'm quick to act", "I like to think quietly first"),
    "big5:intellect": ("I like to dig into details", "I keep things simple"),
    "big5:agreeableness": ("I trust what other buyers say", "I make up my own mind"),
    "big5:emotional_stability": ("I stay calm about purchases", "I worry about making the wrong choice"),
}
_LABEL_KEYWORDS: dict[str, tuple[str, ...]] = {
    "review": ("review", "rating", "star", "opinion", "feedback"),
    "purchase": ("buy", "purchase", "cart", "order", "deal", "value", "price"),
    TERMINATE: ("budget", "time", "later", "leave", "compare", "wait", "spend"),
    INPUT: ("search", "look for", "find", "need", "shopping for"),
    "search": ("search", "find", "look for"),
    "product_option": ("size", "color", "colour", "style", "option", "fit"),
    "product_link": ("product", "brand", "quality", "look"),
    "filter": ("price", "brand", "budget", "filter", "rating"),
    "cart_side_bar": ("cart", "order"),
    "cart_page_select": ("cart", "order"),
    "quantity": ("quantity", "pack", "bulk", "stock"),
}
_LEADING_SUBJECT = re.compile(r"^\s*(?:\[participant\]|the participant|participant|they|he|she)\s+(\w+)", re.IGNORECASE)
_IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}


MIN_REASON_WORDS = 5


def first_person(sentence: str) -> str:
    """'[Participant] prefers X' -> 'I prefer X' (the leading subject and its verb only)."""
    match = _LEADING_SUBJECT.match(sentence)
    if not match:
        return sentence.strip()
    verb = match.group(1)
    lower = verb.lower()
    if lower in _IRREGULAR:
        verb = _IRREGULAR[lower]
    elif lower.endswith(("ches", "shes", "sses", "xes")):
        verb = verb[:-2]
    elif lower.endswith("ies") and len(lower) > 4:
        verb = verb[:-3] + "y"
    elif lower.endswith("s") and not lower.endswith("ss"):
        verb = verb[:-1]
    return ("I " + verb + sentence[match.end() :]).strip()


def first_sentence(text: str, limit: int = 160) -> str:
    sentence = re.split(r"(?<=[.!?])\s+", text.strip().replace("\n", " "))[0]
    sentence = sentence.lstrip("-*# ").strip()
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rsplit(" ", 1)[0] + "…"


def memory_words(memory: Memory) -> str:
    """What the person said or stated: a transcript passage is reduced to the participant's own answer."""
    text = memory.text
    if memory.kind == "transcript" and "I said:" in text:
        text = text.split("I said:", 1)[1]
    return text.strip()


# Survey answers: quoted only when agreed with and on topic (see pick_memory).
_SURVEY_KINDS = frozenset({"preference", "personality", "profile"})
_NOT_AGREED = re.compile(r"\b(?:disagree|neither|don't|do not|not|never|rarely)\b", re.IGNORECASE)
# label -> persona features whose low (-) or high (+) side says the opposite of doing it.
CONTRADICTS: dict[str, frozenset[tuple[str, int]]] = {
    "purchase": frozenset({("pref:impulsiveness", -1), ("pref:recreational", +1)}),
    TERMINATE: frozenset({("pref:impulsiveness", +1)}),
    "review": frozenset({("pref:review_engagement", -1), ("pref:impulsiveness", +1)}),
    "product_link": frozenset({("pref:impulsiveness", +1)}),
}


def contradicts(label: str, feature: str, value: float) -> bool:
    return value != 0 and (feature, 1 if value > 0 else -1) in CONTRADICTS.get(label, frozenset())


def pick_memory(memories: Sequence[Memory], label: str) -> Memory | None:
    """The recalled memory of what the person said that best fits this choice: keyword hits, then
    statements over transcript passages (a Q&A fragment reads badly as a reason), then recall order.
    A survey answer qualifies only when it is agreed with and names this kind of action."""
    keywords = _LABEL_KEYWORDS.get(label, ())
    memories = [
        m
        for m in memories
        if m.kind not in _SURVEY_KINDS
        or (not _NOT_AGREED.search(m.text) and any(word in m.text.lower() for word in keywords))
    ]
    if not memories:
        return None

    def rank(item: tuple[int, Memory]) -> tuple[bool, int, bool, int]:
        position, memory = item
        text = memory_words(memory).lower()
        hits = sum(1 for word in keywords if word in text)
        return (_too_short(memory), -hits, memory.kind == "transcript", position)

    best = min(enumerate(memories), key=rank)[1]
    return None if _too_short(best) else best


def _too_short(memory: Memory) -> bool:
    """A one-word answer ("Narrow.") says nothing on its own; such a memory is no reason."""
    return len(first_sentence(memory_words(memory)).split()) < MIN_REASON_WORDS


def session_facts(past: Sequence[PastAction]) -> tuple[dict[str, int], int | None]:
    """How often each label occurs in the session, and its length in minutes when the steps are timed."""
    counts = {label: sum(1 for item in past if item.label == label) for label in {item.label for item in past}}
    minutes = None
    if len(past) >= 2 and past[0].timestamp is not None and past[-1].timestamp is not None:
        minutes = max(0, round((past[-1].timestamp - past[0].timestamp) / 60))
    return counts, minutes


def driver_phrase(
    name: str, past: Sequence[PastAction], facts: tuple[dict[str, int], int | None] | None = None
) -> str | None:
    """One history feature that drove a choice, in words with the session's real counts (None: nothing to say)."""
    counts, minutes = facts if facts is not None else session_facts(past)
    if name.startswith("prev1="):
        prev = name.split("&")[0].split("=", 1)[1]
        return _PREV_PHRASES.get(prev)
    if (
        name == "count:products"
        and counts.get("product_link")
        and not (counts["product_link"] == 1 and past[-1].label == "product_link")
    ):
        n = counts["product_link"]
        return f"I've opened {n} product{'s' if n != 1 else ''}"
    if name == "count:reviews" and counts.get("review"):
        return "I've read through the reviews"
    if name == "count:options" and counts.get("product_option"):
        return "I've compared the options"
    if name == "count:searching":
        n = counts.get(INPUT, 0) + counts.get("search", 0)
        return f"I've searched {n} time{'s' if n != 1 else ''}" if n else None
    if name.startswith("never:products"):
        return "I haven't opened any product yet"
    if name.startswith("step>=") and len(past) >= 9:
        return f"I've taken {len(past)} steps already"
    if name == "log_elapsed" and minutes:
        return f"I've been at this for about {minutes} minute{'s' if minutes != 1 else ''}"
    if name.startswith("live:log_seconds"):
        return "I've been idle on this page for a while"
    return None


def situation(drivers: Sequence[str], past: Sequence[PastAction]) -> list[str]:
    """Phrases for the history features that drove the choice, with the session's real counts."""
    phrases: list[str] = []
    facts = session_facts(past)
    for name in drivers:
        phrase = driver_phrase(name, past, facts)
        if phrase and phrase not in phrases:
            phrases.append(phrase)
    if not phrases and past:
        phrases.append(_PREV_PHRASES.get(past[-1].label, "I've been browsing"))
    if not past and _PREV_PHRASES["START"] not in phrases:
        phrases.append(_PREV_PHRASES["START"])
    return phrases[:2]


def persona_phrase(name: str, value: float, label: str) -> str | None:
    """A persona answer that pushed this label, in words; None when it has no words or says the opposite."""
    if name not in _PERSONA_PHRASES or not value or contradicts(label, name, value):
        return None
    high, low = _PERSONA_PHRASES[name]
    return high if value > 0 else low


def persona_reason(persona_drivers: Sequence[tuple[str, float]], label: str) -> str | None:
    for name, value in persona_drivers:
        phrase = persona_phrase(name, value, label)
        if phrase:
            return phrase
    return None


def write_rationale(
    label: str,
    doing: str,
    drivers: Sequence[str],
    persona_drivers: Sequence[tuple[str, float]],
    memories: Sequence[Memory],
    past: Sequence[PastAction],
    reasons: Sequence[str] = (),
    page_trait: str | None = None,
    purpose: str | None = None,
) -> str:
    """First-person rationale: what moved me (page facts, else the session so far, else what I came for),
    the decision, and the trait or memory behind it."""
    if reasons:
        where = ", and ".join(reasons)
        if purpose:
            where = f"{purpose}, and {where}"
    elif purpose and not past:
        where = purpose
    else:
        where = " and ".join(situation(drivers, past))
    text = f"{where[0].upper()}{where[1:]}, so {doing}."
    if page_trait:
        return f"{text} {page_trait[0].upper()}{page_trait[1:]}."
    memory = pick_memory(memories, label)
    trait = persona_reason(persona_drivers, label)
    if memory is not None:
        text += f" That's like me: {first_person(first_sentence(memory_words(memory)))}"
        if not text.endswith((".", "!", "?", "…")):
            text += "."
    elif trait:
        text += f" {trait[0].upper()}{trait[1:]}."
    return text


_DOING: dict[str, str] = {
    "review": "I'll look at what other buyers say{target}",
    "search": "I'll use the search{target}",
    "search_box": "I'll click into the search box to change my search",
    "product_option": "I'll try another option{target}",
    "product_link": "I'll open this product{target}",
    "other": "I'll check{target}",
    "purchase": "I'm going ahead and buying{target}",
    "nav_bar": "I'll use the menu{target}",
    "page_related": "I'll see more results{target}",
    "quantity": "I'll set how many I want{target}",
    "suggested_term": "I'll take the suggested search{target}",
    "cart_side_bar": "I'll look at my cart{target}",
    "cart_page_select": "I'll sort out the items in my cart{target}",
    "filter": "I'll filter the results{target}",
}


def doing_phrase(
    label: str,
    target: str | None,
    query: str | None = None,
    buy_share: float | None = None,
    into_box: bool = False,
    elsewhere: bool = False,
) -> str:
    """What I do now, in words (the element's text when known). `elsewhere`: the product in view put me off."""
    if elsewhere and label == "product_link":
        return "I'll look at another one" + (f': "{target[:80]}"' if target else "")
    if elsewhere and label == "search" and not into_box:
        return "I'll search for something else"
    if elsewhere and label == TERMINATE:
        return "I'll leave it and look elsewhere"
    if label == "search" and into_box:
        return _DOING["search_box"]
    if label == TERMINATE:
        if buy_share is not None and buy_share >= 0.5:
            return "I've seen enough and I'll stop here for now"
        return "I'm leaving without buying for now"
    if label == INPUT:
        return f'I\'ll search for "{query}"' if query else "I'll type a search"
    shown = f': "{target[:80]}"' if target else ""
    return _DOING.get(label, "I'll click{target}").format(target=shown)
