"""Survey scoring on the real OPeRA user-table sample (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0)."""

from __future__ import annotations

import csv
import json
import sys

import pytest

from personas.persona import PREFERENCE_CONSTRUCTS, BigFive
from personas.survey import (
    IPIP_KEY,
    big_five,
    ipip_item_answers,
    ipip_item_number,
    parse_ipip_answer,
    parse_level,
    parse_likert,
    preferences_from_raw_survey,
    preferences_from_statements,
    score_ipip50,
    statement_construct,
    trait_name,
)

IPIP_PREFIX = "Please read the statements carefully and indicate to what extent you agree of disagree. - "


@pytest.fixture(scope="module")
def rows(opera_dir):
    csv.field_size_limit(sys.maxsize)
    with open(opera_dir / "users_sample.csv", newline="", encoding="utf-8") as handle:
        return {row["user_id"][:8]: row for row in csv.DictReader(handle)}


def _raw(rows, prefix):
    return json.loads(rows[prefix]["raw_survey"])


def _survey(rows, prefix):
    return json.loads(rows[prefix]["survey"])


@pytest.mark.parametrize(
    "answer, score",
    [
        ("Strongly disagree", 1),
        ("somewhat DISAGREE", 2),
        ("Neither agree or disagree", 3),
        ("Neither agree nor disagree", 3),
        ("  Somewhat   agree ", 4),
        ("Strongly agree.", 5),
        ("4", 4),
        (5, 5),
    ],
)
def test_likert_answers_are_parsed_tolerantly(answer, score):
    assert parse_likert(answer) == score


def test_likert_blank_is_unknown_and_nonsense_is_an_error():
    assert parse_likert("") is None and parse_likert(None) is None
    with pytest.raises(ValueError, match="Likert"):
        parse_likert("Totally")
    with pytest.raises(ValueError):
        parse_likert(7)


def test_statement_numbers_in_raw_keys_map_to_constructs():
    assert (
        statement_construct("To what extent do you agree: - 9.Once I find a brand I like, I stick with it.")
        == "brand_loyalty"
    )
    assert (
        statement_construct("To what extent do you agree: - 12. I look carefully to find the best value")
        == "price_consciousness"
    )
    assert statement_construct("to what extent do you agree:-1. I tend to shop more") == "seasonality"
    with pytest.raises(ValueError, match=r"outside 1\.\.12"):
        statement_construct("To what extent do you agree: - 13. Something else")


def test_statement_texts_are_matched_regardless_of_case_and_punctuation():
    assert statement_construct("once i find a brand i like i stick with it") == "brand_loyalty"
    assert statement_construct("A statement nobody asked") is None


def test_survey_text_and_raw_numbers_give_the_same_preferences_on_real_rows(rows):
    """The survey JSON (matched by text) and raw_survey (matched by number) are two views of one answer sheet."""
    for prefix in rows:
        statements = _survey(rows, prefix)["Shopping Preference"][
            "To what extent do you agree with the following statements"
        ]
        by_text = preferences_from_statements(statements)
        by_number = preferences_from_raw_survey(_raw(rows, prefix))
        assert set(by_text) == set(PREFERENCE_CONSTRUCTS)
        assert by_text == by_number


def test_known_answers_of_user_7f0c8207(rows):
    prefs = preferences_from_raw_survey(_raw(rows, "7f0c8207"))
    # "I usually do a lot research ...": Strongly agree; "I shop quickly ...": Strongly disagree; item 9: Neither.
    assert prefs["review_engagement"] == 5 and prefs["impulsiveness"] == 1 and prefs["brand_loyalty"] == 3


def test_unknown_statement_in_survey_json_is_an_error():
    with pytest.raises(ValueError, match="unknown shopping statement"):
        preferences_from_statements({"I like turtles.": "Strongly agree"})


def test_ipip_key_has_ten_items_per_factor_and_the_published_first_row():
    assert [f"{factor}{'+' if sign > 0 else '-'}" for factor, sign in IPIP_KEY[:5]] == ["E+", "A-", "C+", "N+", "O+"]
    for factor in "EACNO":
        assert sum(1 for f, _ in IPIP_KEY if f == factor) == 10


def test_ipip_item_numbers_come_from_the_raw_key():
    assert ipip_item_number(IPIP_PREFIX + "12. Insult people") == 12
    assert ipip_item_number("To what extent do you agree: - 2. Online Ads attract my attention") is None
    assert ipip_item_number("1. Extraversion") is None


@pytest.mark.parametrize(
    "answer, score",
    [
        ("Very Inaccurate", 1),
        ("moderately inaccurate", 2),
        ("Neither Accurate Nor Inaccurate", 3),
        ("neither accurate  nor inaccurate", 3),
        ("Moderately Accurate", 4),
        ("VERY ACCURATE", 5),
    ],
)
def test_ipip_answers(answer, score):
    assert parse_ipip_answer(answer) == score


def test_bad_ipip_answer_names_the_item():
    with pytest.raises(ValueError, match=r"12\. Insult people"):
        ipip_item_answers({IPIP_PREFIX + "12. Insult people": "Sometimes"})


def test_ipip50_scores_of_user_7f0c8207(rows):
    result = big_five(_raw(rows, "7f0c8207"), _survey(rows, "7f0c8207")["Personality"]["Big Five Scores"])
    assert result.method == "ipip50"
    assert result.scores == {
        "extraversion": 20,
        "agreeableness": 44,
        "conscientiousness": 39,
        "emotional_stability": 27,
        "intellect": 43,
    }
    assert result.dataset_sums["intellect"] == 39  # the dataset's own figure, kept beside ours
    assert result.levels["agreeableness"] == "Extremely high"


def test_standard_key_matches_dataset_sums_except_intellect_item_20(rows):
    """README: E, A, C and Emotional Stability match exactly; the dataset keys item 20 as + instead of -."""
    for prefix in rows:
        raw = _raw(rows, prefix)
        result = big_five(raw)
        for trait in ("extraversion", "agreeableness", "conscientiousness", "emotional_stability"):
            assert result.scores[trait] == result.dataset_sums[trait], (prefix, trait)
        item20 = ipip_item_answers(raw)[20]
        assert result.scores["intellect"] - (6 - item20) + item20 == result.dataset_sums["intellect"]


def _extraversion_items(answered: int) -> dict[int, int]:
    """Answers to the first `answered` extraversion items, each scoring 4 once keyed."""
    items = [n for n, (factor, _) in enumerate(IPIP_KEY, start=1) if factor == "E"][:answered]
    return {n: (4 if IPIP_KEY[n - 1][1] > 0 else 2) for n in items}


def test_missing_items_scale_the_mean_to_a_sum_from_seven_answered():
    assert score_ipip50(_extraversion_items(10)) == {"extraversion": 40.0}
    assert score_ipip50(_extraversion_items(7)) == {"extraversion": 40.0}
    assert score_ipip50(_extraversion_items(6)) == {}


def test_partial_trait_on_real_answers_is_the_scaled_mean(rows):
    raw = _raw(rows, "7f0c8207")
    dropped = {k: v for k, v in raw.items() if ipip_item_number(k) not in (1, 6, 11)}  # three E items
    scores = big_five(dropped).scores
    # 7f0c8207 answered items 1, 6, 11 as 2, 4, 2 -> keyed 2, 2, 2 of the full sum 20: the other 7 sum to 14.
    assert scores["extraversion"] == pytest.approx(14 / 7 * 10)
    assert scores["agreeableness"] == 44


def test_reported_levels_when_no_raw_items():
    result = big_five({}, {"Extraversion": "extremely  LOW", "Emotional Stability": "Medium"})
    assert result.method == "reported_levels"
    assert result.levels == {"extraversion": "Extremely low", "emotional_stability": "Medium"}
    assert BigFive(levels=result.levels).unit("extraversion") < BigFive(levels={"extraversion": "Low"}).unit(
        "extraversion"
    )
    assert big_five({}, {}).method == "none"


def test_unknown_levels_and_traits_are_errors():
    with pytest.raises(ValueError, match="level"):
        parse_level("Sky high")
    with pytest.raises(ValueError, match="trait"):
        trait_name("Charisma")
    assert trait_name("Openness") == "intellect"
