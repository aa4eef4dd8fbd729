"""The persona card: the person's own answers and words, never invented."""

from __future__ import annotations

from personas.persona import Persona
from personas.persona_card import card_traits, persona_card
from personas.survey import SHOPPING_STATEMENTS


def test_card_of_a_real_opera_person_carries_their_answers_and_own_words(sample_users):
    person = sample_users[0]
    card = persona_card(person)
    assert card["id"] == person.id
    agreed = {c for c, a in person.preferences.items() if a >= 4}
    assert len(card["agrees_with"]) == len(agreed) and set(card["agrees_with"]) <= set(SHOPPING_STATEMENTS)
    assert card["own_words"] and card["own_words"] in (person.self_description or "") + (person.interview_summary or "")
    assert set(card["big_five"]) == set(person.big_five.scores) or set(card["big_five"]) == set(person.big_five.levels)
    row = card_traits(card)
    assert all(not isinstance(v, (dict, list)) for v in row.values())


def test_a_persona_with_nothing_answered_has_an_empty_card():
    card = persona_card(Persona(id="blank"))
    assert card == {
        "id": "blank",
        "name": None,
        "demographics": {},
        "shopping": {},
        "big_five": {},
        "agrees_with": [],
        "disagrees_with": [],
        "own_words": None,
    }


def test_levels_come_from_the_report_when_only_levels_are_known():
    person = Persona(
        id="p",
        big_five={"levels": {"intellect": "Low"}, "method": "reported_levels"},
        self_description="I buy what I need. Nothing more.",
    )
    card = persona_card(person)
    assert card["big_five"] == {"intellect": {"unit": 0.3, "level": "Low"}}
    assert card["own_words"] == "I buy what I need."
