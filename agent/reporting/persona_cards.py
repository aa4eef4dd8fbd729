"""Who a twin is, wherever it appears in a report: a short label ("Female, 25-34, Student · 7f0c8207") that links
to the persona's card, and the cards themselves (personas.persona_card: demographics, Big Five, the statements
the person agrees with, a sentence of their own words). Nothing is invented: a field the person did not answer
is left out.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent.reporting.kit import Html, esc, section

SHORT_ID = 8
BIG_FIVE_NAMES = {
    "extraversion": "Extraversion",
    "agreeableness": "Agreeableness",
    "conscientiousness": "Conscientiousness",
    "emotional_stability": "Emotional stability",
    "intellect": "Openness (intellect)",
}
DEMOGRAPHICS = (
    ("gender", "gender"),
    ("age", "age"),
    ("city", "city"),
    ("education", "education"),
    ("employment", "work"),
    ("income", "income"),
    ("living_situation", "lives"),
)
SHOPPING = (("frequency", "shops online"), ("monthly_spend", "spends a month"), ("prime", "Prime member"))


def short_id(persona_id: str) -> str:
    """A UUID's first 8 characters; a short id whole (cutting "persona-12" would merge it with "persona-13")."""
    return persona_id if len(persona_id) <= 12 else persona_id[:SHORT_ID]


def persona_label(card: dict | None, persona_id: str, short: bool = False) -> str:
    """Name (if any), gender, age band and first line of work, then the id's start: enough to tell twins apart.
    Short (chart axes): gender and age band only."""
    card = card or {}
    demographics = card.get("demographics") or {}
    parts = [card["name"]] if card.get("name") and not short else []
    if demographics.get("gender"):
        parts.append(demographics["gender"])
    if demographics.get("age"):
        parts.append(str(demographics["age"]).removesuffix(" years old").strip())
    if demographics.get("employment") and not short:
        parts.append(str(demographics["employment"]).split(",")[0].strip())
    return (", ".join(parts) + " · " if parts else "persona ") + short_id(persona_id)


def anchor(persona_id: str) -> str:
    return f"persona-{persona_id}"


def persona_link(cards: dict[str, dict], persona_id: str) -> Html:
    """The label, linking to the card when the report carries it; the full id in the tooltip."""
    text = esc(persona_label(cards.get(persona_id), persona_id))
    if persona_id in cards:
        return Html(f"<a class='persona' href='#{esc(anchor(persona_id))}' title='{esc(persona_id)}'>{text}</a>")
    return Html(f"<span class='persona' title='{esc(persona_id)}'>{text}</span>")


def _facts(pairs: Iterable[tuple[str, object]]) -> str:
    rows = "".join(f"<dt>{esc(name)}</dt><dd>{esc(value)}</dd>" for name, value in pairs)
    return f"<dl>{rows}</dl>" if rows else ""


def _shopping_value(key: str, value: object) -> object:
    if key == "prime":
        return "yes" if value else "no"
    if key == "monthly_spend" and str(value).replace(".", "", 1).isdigit():
        return f"${value}"
    return value


def persona_card_html(card: dict) -> Html:
    persona_id = str(card.get("id", ""))
    demographics, shopping = card.get("demographics") or {}, card.get("shopping") or {}
    parts = [f"<h3>{esc(persona_label(card, persona_id))}</h3><div class='muted'>id {esc(persona_id)}</div>"]
    parts.append(
        _facts(
            [(name, demographics[key]) for key, name in DEMOGRAPHICS if demographics.get(key) is not None]
            + [(name, _shopping_value(key, shopping[key])) for key, name in SHOPPING if shopping.get(key) is not None]
        )
    )
    traits = card.get("big_five") or {}
    if traits:
        parts.append(
            "<div class='traits' aria-label='Big Five'>"
            + "".join(
                f"<div class='trait'><span>{esc(BIG_FIVE_NAMES.get(trait, trait))}</span>"
                f"<span class='bar' title='{value['unit']:.2f} on 0..1'><span "
                f"style='width:{100 * value['unit']:.0f}%'></span>"
                f"</span><span>{esc(value.get('level') or '')}</span></div>"
                for trait, value in traits.items()
            )
            + "</div>"
        )
    for key, title in (("agrees_with", "Agrees"), ("disagrees_with", "Disagrees")):
        statements = card.get(key) or []
        if statements:
            parts.append(f"<h4>{title}</h4><ul>" + "".join(f"<li>{esc(s)}</li>" for s in statements) + "</ul>")
    if card.get("own_words"):
        parts.append(f"<blockquote>{esc(card['own_words'])}<span class='who'>in their own words</span></blockquote>")
    return Html(f"<article class='persona-card' id='{esc(anchor(persona_id))}'>{''.join(parts)}</article>")


def persona_cards_section(cards: dict[str, dict], note: str = "") -> Html:
    """Every card the result carries, in its order."""
    if not cards:
        return Html("")
    intro = (
        "Each twin acts as the persona it was given, shown here as answered (never filled in): demographics, "
        "Big Five personality (0..1 and level), the shopping statements the person agrees (4-5 of 5) or "
        "disagrees (1-2) with, and a sentence in their own words. "
    )
    return section(
        "Who the twins are",
        Html(f"<p class='muted'>{esc(intro + note)}</p>"),
        Html("<div class='persona-cards'>" + "".join(persona_card_html(c) for c in cards.values()) + "</div>"),
        anchor="personas",
    )
