"""Memory texts from real OPeRA personas (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) and the examples."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from personas.interview_passages import (
    PASSAGE_MAX_CHARS,
    TRANSCRIPT_MAX_CHARS,
    first_person,
    split_sentences,
    transcript_turns,
)
from personas.memory_texts import CORE_PROFILE_MAX_CHARS, core_profile_text, persona_memory_texts, preference_sentence
from personas.memory_types import MemoryKind
from personas.persona import Persona
from personas.sources import load_personas

EXAMPLES = Path(__file__).resolve().parents[1] / "personas" / "examples"


def _texts(persona, kind):
    return [text for k, text in persona_memory_texts(persona) if k == kind]


def test_kinds_are_memory_kinds_and_all_present_for_a_full_user_table_row(sample_users):
    kinds = {kind for kind, _ in persona_memory_texts(sample_users[0])}
    assert kinds == {"profile", "preference", "personality", "interview", "transcript"}
    assert kinds <= set(get_args(MemoryKind))


def test_profile_facts_in_the_first_person(sample_users):
    profile = _texts(sample_users[0], "profile")
    assert "I am a 25-34 year old female living in Blacksburg." in profile
    assert "I shop online once to twice a week." in profile
    assert "I have no Amazon Prime membership." in profile
    assert "I spend about $200 a month shopping online." in profile
    assert "I have a paid Amazon Prime membership." in _texts(sample_users[1], "profile")
    assert "I live together with roommate." in _texts(sample_users[1], "profile")


def test_one_preference_sentence_per_answer(sample_users):
    persona = sample_users[0]
    sentences = _texts(persona, "preference")
    assert len(sentences) == len(persona.preferences) == 12
    assert "I strongly agree that I do a lot of research, such as reading reviews, before I buy." in sentences
    assert preference_sentence("impulsiveness", 1) in sentences  # answered "Strongly disagree"
    assert preference_sentence("impulsiveness", 1).startswith("I strongly disagree that I shop quickly")


def test_personality_in_plain_words_with_the_ipip_sum(sample_users):
    texts = _texts(sample_users[0], "personality")
    assert len(texts) == 6  # five traits and the MBTI type
    extraversion = next(t for t in texts if t.startswith("My extraversion"))
    assert "low" in extraversion and "20 of 50" in extraversion and "reserved" in extraversion
    assert any("agreeableness is very high" in t for t in texts)
    assert "My MBTI personality type is INFJ." in texts


def test_interview_summary_passages_keep_every_section_in_the_first_person(sample_users):
    for persona in sample_users:
        passages = _texts(persona, "interview")
        titles = re.findall(r"^###\s*(.+)$", persona.interview_summary, flags=re.MULTILINE)
        assert {t.lower() for t in titles} == {re.match(r"From my interview \((.+?)\)", p).group(1) for p in passages}
        for passage in passages:
            body = passage.split("): ", 1)[1]
            assert len(body) <= PASSAGE_MAX_CHARS
            assert "[Participant]" not in passage
    shopping = [p for p in _texts(sample_users[0], "interview") if "shopping preference" in p]
    assert shopping[0].startswith("From my interview (shopping preference): I prioritize buying from official stores")


def test_transcript_passages_cover_every_answer_with_its_question(sample_users):
    for persona in sample_users:
        passages = _texts(persona, "transcript")
        assert passages
        for passage in passages:
            assert len(passage) <= TRANSCRIPT_MAX_CHARS + 50  # the header line is on top of the packing limit
            assert "I said:" in passage
        said = [m for p in passages for m in re.findall(r"^I said: (.*)$", p, flags=re.MULTILINE)]
        answers = [text for speaker, text in transcript_turns(persona.transcript) if speaker == "participant"]
        assert len(answers) == len(re.findall(r"^Participant:", persona.transcript, flags=re.MULTILINE))
        # Every word the participant said is kept, in order, across the passages.
        assert " ".join(said).split() == " ".join(answers).split()


def test_transcript_turns_follow_speaker_labels():
    turns = transcript_turns(
        "Interviewer: Where do you live?\nParticipant: In Boston.\nwith a roommate\nInterviewer: Ok"
    )
    assert turns == [
        ("interviewer", "Where do you live?"),
        ("participant", "In Boston. with a roommate"),
        ("interviewer", "Ok"),
    ]


@pytest.mark.parametrize(
    "summary, expected",
    [
        ("[Participant] lives alone and works in research.", "I live alone and work in research."),
        ("[Participant] is skeptical of ads; they ignore them.", "I am skeptical of ads; I ignore them."),
        ("[Participant]'s budget is tight.", "My budget is tight."),
        ("[Participant] often buys in bulk. Their cart is full.", "I often buy in bulk. My cart is full."),
        ("[Participant] identifies as an introvert.", "I identify as an introvert."),
        ("They buy items in-store if they are discounted.", "I buy items in-store if they are discounted."),
        ("[Participant] reads reviews and ratings.", "I read reviews and ratings."),
    ],
)
def test_first_person_rewrites_simple_cases(summary, expected):
    assert first_person(summary) == expected


def test_split_sentences_respects_the_limit_and_keeps_every_word():
    text = " ".join(f"Sentence number {i} says something about shopping." for i in range(40)) + " " + "word " * 200
    pieces = split_sentences(text, 120)
    assert all(len(piece) <= 120 for piece in pieces)
    assert " ".join(pieces).split() == text.split()


def test_core_profile_is_compact_first_person_and_grounded(opera_dir, sample_users):
    everyone = sample_users + load_personas(opera_dir / "personas.jsonl") + load_personas(EXAMPLES / "maria.yaml")
    for persona in everyone:
        text = core_profile_text(persona)
        assert 0 < len(text) <= CORE_PROFILE_MAX_CHARS
        if persona.demographics.city:
            assert persona.demographics.city in text
    text = core_profile_text(sample_users[0])
    assert text.startswith("I am a 25-34 year old female living in Blacksburg.")
    assert "no Amazon Prime" in text and "researching and reading reviews" in text and "INFJ" in text


def test_core_profile_fits_a_very_long_self_description():
    persona = Persona(
        id="wordy",
        name="Wordy",
        self_description="I like long sentences. " * 300,
        preferences=dict.fromkeys(("quality", "delivery", "novelty"), 5),
    )
    text = core_profile_text(persona)
    assert len(text) <= CORE_PROFILE_MAX_CHARS
    assert "My name is Wordy." in text and "high quality" in text


def test_a_bare_persona_has_no_memories():
    assert persona_memory_texts(Persona(id="nobody")) == []
