"""Persona readers on the real OPeRA files (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) and on broken copies."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pydantic import ValidationError

from personas.persona import PREFERENCE_CONSTRUCTS
from personas.sources import PersonaSourceError, load_personas, persona_from_record
from personas.sources.native import read_native
from personas.sources.opera_personas_jsonl import LABEL_CONSTRUCTS, read_personas_jsonl
from personas.sources.opera_user_table import read_user_table

EXAMPLES = Path(__file__).resolve().parents[1] / "personas" / "examples"
USER_7F = "7f0c8207-6a6f-49cd-9d7e-17987cfafcb9"


@pytest.fixture(scope="module")
def user_rows(opera_dir) -> list[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    with open(opera_dir / "users_sample.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def jsonl_records(opera_dir) -> list[dict]:
    return [json.loads(line) for line in (opera_dir / "personas.jsonl").read_text().splitlines() if line.strip()]


def _write_csv(path: Path, rows: list[dict], fieldnames: list[str] | None = None) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames or list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


# ---- the OPeRA user table ------------------------------------------------------------------------


def test_user_table_csv_reads_the_two_real_rows(sample_users, user_rows):
    assert [p.id for p in sample_users] == [row["user_id"] for row in user_rows]
    first = sample_users[0]
    assert first.id == USER_7F and first.source == "opera_user_table"
    assert (first.demographics.gender, first.demographics.age, first.demographics.city) == (
        "Female",
        "25-34 years old",
        "Blacksburg",
    )
    assert first.demographics.living_situation is None  # answered "" in the survey
    assert first.demographics.employment == "Student"
    assert (first.shopping.frequency, first.shopping.monthly_spend, first.shopping.prime) == (
        "Once to twice a week",
        "200",
        False,
    )
    assert sample_users[1].shopping.prime is True
    assert first.mbti == "INFJ"  # answered "infj"
    assert set(first.preferences) == set(PREFERENCE_CONSTRUCTS)
    assert first.preferences["review_engagement"] == 5 and first.preferences["impulsiveness"] == 1
    assert first.big_five.method == "ipip50"
    assert first.big_five.scores == {
        "extraversion": 20,
        "agreeableness": 44,
        "conscientiousness": 39,
        "emotional_stability": 27,
        "intellect": 43,
    }
    assert first.big_five.dataset_sums["intellect"] == 39
    assert first.self_description.startswith("I am a PhD student in computer science")
    assert first.interview_summary == user_rows[0]["interview_transcript_processed"].strip()
    assert first.transcript.startswith("Interviewer:")


def test_parquet_jsonl_and_directory_copies_read_identically_to_the_csv(tmp_path, opera_dir, user_rows):
    from_csv = read_user_table(opera_dir / "users_sample.csv")

    parquet = tmp_path / "users.parquet"
    pq.write_table(pa.Table.from_pylist(user_rows), parquet)
    assert read_user_table(parquet) == from_csv

    # JSONL with the JSON columns already decoded to objects, as a parquet/JSONL export may hold them.
    decoded = [
        {**row, "survey": json.loads(row["survey"]), "raw_survey": json.loads(row["raw_survey"])} for row in user_rows
    ]
    assert read_user_table(_write_jsonl(tmp_path / "users.jsonl", decoded)) == from_csv

    # OPeRA's layout: user/{train,test}/*.parquet; a user in both splits is read once.
    for split, rows in (("train", user_rows), ("test", user_rows[:1])):
        (tmp_path / "user" / split).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows), tmp_path / "user" / split / "part-0.parquet")
    assert sorted(p.id for p in read_user_table(tmp_path / "user")) == sorted(p.id for p in from_csv)
    assert load_personas(tmp_path / "user") == read_user_table(tmp_path / "user")


def test_a_user_listed_twice_with_different_answers_is_an_error(tmp_path, user_rows):
    changed = {**user_rows[0], "interview_transcript_processed": "something else"}
    with pytest.raises(PersonaSourceError, match="appears twice") as caught:
        read_user_table(_write_csv(tmp_path / "twice.csv", [user_rows[0], changed]))
    assert caught.value.field == "user_id" and caught.value.location.startswith("row 2")


def test_malformed_survey_json_names_file_row_and_field(tmp_path, user_rows):
    broken = {**user_rows[1], "survey": user_rows[1]["survey"][:-5]}
    path = _write_csv(tmp_path / "broken.csv", [user_rows[0], broken])
    with pytest.raises(PersonaSourceError) as caught:
        read_user_table(path)
    error = caught.value
    assert error.field == "survey" and error.location.startswith("row 2") and error.path == str(path)
    assert (
        "broken.csv" in str(error)
        and "row 2" in str(error)
        and "survey" in str(error)
        and "malformed JSON" in str(error)
    )


def test_missing_user_id_value_and_column(tmp_path, user_rows):
    with pytest.raises(PersonaSourceError) as caught:
        read_user_table(_write_csv(tmp_path / "no_id.csv", [{**user_rows[0], "user_id": ""}]))
    assert caught.value.field == "user_id" and caught.value.location.startswith("row 1")

    without_column = [{k: v for k, v in row.items() if k != "user_id"} for row in user_rows]
    with pytest.raises(PersonaSourceError, match="missing column") as caught:
        read_user_table(_write_csv(tmp_path / "no_column.csv", without_column))
    assert caught.value.field == "user_id"


def test_bad_user_id_and_bad_answers_in_a_row(user_rows):
    with pytest.raises(PersonaSourceError) as caught:
        persona_from_record({**user_rows[0], "user_id": "no spaces/or slashes"})
    assert caught.value.field == "user_id"

    survey = json.loads(user_rows[0]["survey"])
    survey["Shopping Preference"]["To what extent do you agree with the following statements"][
        "Once I find a brand I like, I stick with it."
    ] = "Meh"
    with pytest.raises(PersonaSourceError, match="Meh") as caught:
        persona_from_record({**user_rows[0], "survey": json.dumps(survey)})
    assert caught.value.field.startswith("survey.Shopping Preference")

    survey = json.loads(user_rows[0]["survey"])
    survey["Shopping Preference"]["Amazon Prime membership"] = "Sometimes"
    with pytest.raises(PersonaSourceError, match="Yes") as caught:
        persona_from_record({**user_rows[0], "survey": json.dumps(survey)})
    assert caught.value.field.endswith("Amazon Prime membership")

    with pytest.raises(PersonaSourceError) as caught:
        persona_from_record({**user_rows[0], "raw_survey": "[1, 2]"})
    assert caught.value.field == "raw_survey"


def test_levels_are_used_when_the_raw_survey_is_absent(user_rows):
    persona = persona_from_record({**user_rows[0], "raw_survey": ""})
    assert persona.big_five.method == "reported_levels" and persona.big_five.scores == {}
    assert persona.big_five.levels["agreeableness"] == "Extremely high"
    assert set(persona.preferences) == set(PREFERENCE_CONSTRUCTS)  # still from the survey JSON


# ---- personas.jsonl ------------------------------------------------------------------------------


def test_all_52_personas_jsonl_lines_load(opera_dir, jsonl_records):
    personas = read_personas_jsonl(opera_dir / "personas.jsonl")
    assert len(personas) == len(jsonl_records) == 52
    assert [p.id for p in personas] == [r["user_id"] for r in jsonl_records]
    for persona, record in zip(personas, jsonl_records, strict=True):
        assert persona.source == "opera_personas_jsonl"
        assert persona.big_five.method == ("reported_levels" if record["big_five_levels"] else "none")
        assert set(persona.preferences) == set(LABEL_CONSTRUCTS.values())
        assert not {"seasonality", "novelty", "recreational"} & set(persona.preferences)
        assert persona.shopping.prime == {"Yes": True, "No": False, "": None}[record["prime"]]
    assert load_personas(opera_dir / "personas.jsonl") == personas


def test_every_label_in_the_real_file_is_mapped(jsonl_records):
    labels = {label for r in jsonl_records for label in r["agrees_with"] + r["disagrees_with"]}
    assert labels <= set(LABEL_CONSTRUCTS)


def test_label_rules_on_real_records(opera_dir):
    by_id = {p.id[:8]: p for p in read_personas_jsonl(opera_dir / "personas.jsonl")}
    first = by_id["3a65c43e"]  # agrees: reviews, ... ; disagrees: speed / good-enough; premium brands in neither
    assert first.preferences["review_engagement"] == 4
    assert first.preferences["impulsiveness"] == 2
    assert first.preferences["brand_consciousness"] == 3
    assert first.shopping.monthly_spend == "200"  # "About $200/month online"
    assert first.big_five.levels["intellect"] == "Extremely high"
    conflicted = by_id["642675b6"]  # "reviews" agreed and disagreed; "value" agreed, "best value" disagreed
    assert conflicted.preferences["review_engagement"] == 3 and conflicted.preferences["price_consciousness"] == 3
    assert conflicted.preferences["delivery"] == 2


def test_extremely_low_levels_of_the_real_file_survive(opera_dir, jsonl_records):
    expected = sum(1 for r in jsonl_records for level in r["big_five_levels"].values() if level == "Extremely low")
    personas = read_personas_jsonl(opera_dir / "personas.jsonl")
    assert expected > 0
    assert sum(1 for p in personas for level in p.big_five.levels.values() if level == "Extremely low") == expected


def test_labels_agree_with_the_likert_answers_of_the_same_users(opera_dir, sample_users):
    """The digest's labels were derived from the survey: agreed means 4-5 there, disagreed 1-2."""
    digest = {p.id: p for p in read_personas_jsonl(opera_dir / "personas.jsonl")}
    for full in sample_users:
        short = digest[full.id]
        assert (short.demographics.city, short.demographics.age) == (full.demographics.city, full.demographics.age)
        assert short.shopping.monthly_spend == full.shopping.monthly_spend
        assert short.big_five.levels == full.big_five.levels
        for construct, score in short.preferences.items():
            if score == 4:
                assert full.preferences[construct] >= 4, (full.id, construct)
            elif score == 2:
                assert full.preferences[construct] <= 2, (full.id, construct)


def test_personas_jsonl_errors_name_line_and_field(tmp_path, jsonl_records):
    bad_label = {**jsonl_records[1], "agrees_with": ["reviews", "free shipping"]}
    with pytest.raises(PersonaSourceError, match="free shipping") as caught:
        read_personas_jsonl(_write_jsonl(tmp_path / "p.jsonl", [jsonl_records[0], bad_label]))
    assert (caught.value.location, caught.value.field) == ("line 2", "agrees_with")

    bad_level = {**jsonl_records[0], "big_five_levels": {"Extraversion": "Huge"}}
    with pytest.raises(PersonaSourceError) as caught:
        read_personas_jsonl(_write_jsonl(tmp_path / "q.jsonl", [bad_level]))
    assert caught.value.field == "big_five_levels"

    no_id = {k: v for k, v in jsonl_records[0].items() if k != "user_id"}
    with pytest.raises(PersonaSourceError) as caught:
        read_personas_jsonl(_write_jsonl(tmp_path / "r.jsonl", [no_id]))
    assert caught.value.field == "user_id"

    (tmp_path / "s.jsonl").write_text(json.dumps(jsonl_records[0]) + "\n{not json\n")
    with pytest.raises(PersonaSourceError, match="line 2"):
        read_personas_jsonl(tmp_path / "s.jsonl")


# ---- native personas -----------------------------------------------------------------------------


def test_the_native_examples_load():
    maria = load_personas(EXAMPLES / "maria.yaml")
    assert [p.id for p in maria] == ["maria-lopez"]
    persona = maria[0]
    assert persona.source == "native" and persona.shopping.prime is True and persona.shopping.monthly_spend == "150"
    assert persona.preferences["quality"] == 4 and persona.preferences["ad_trust"] == 1  # Likert words
    assert persona.big_five.method == "reported_levels"
    assert (
        persona.big_five.levels["emotional_stability"] == "Medium" and persona.big_five.levels["intellect"] == "Medium"
    )

    sam = load_personas(EXAMPLES / "sam-chen.json")[0]
    assert sam.big_five.method == "ipip50" and sam.big_five.scores["intellect"] == 41
    assert sam.shopping.prime is False


def test_native_containers_and_friendly_spellings(tmp_path):
    people = {
        "personas": [
            {"id": "a-1", "preferences": {"Review Engagement": "strongly agree", "price-consciousness": 2}},
            {"id": "b-2", "big_five": {"Extraversion": "high", "Openness": 38}},
        ]
    }
    (tmp_path / "people.yaml").write_text(json.dumps(people))  # JSON is YAML too
    a, b = read_native(tmp_path / "people.yaml")
    assert a.preferences == {"review_engagement": 5, "price_consciousness": 2}
    assert b.big_five.levels == {"extraversion": "High"} and b.big_five.scores == {"intellect": 38}
    assert b.big_five.method == "ipip50"

    (tmp_path / "list.json").write_text(json.dumps([{"id": "c-3"}, {"id": "d-4", "name": "Dee"}]))
    assert [p.id for p in load_personas(tmp_path / "list.json")] == ["c-3", "d-4"]
    _write_jsonl(tmp_path / "native.jsonl", [{"id": "e-5", "mbti": "ENTP"}])
    assert load_personas(tmp_path / "native.jsonl")[0].mbti == "ENTP"


@pytest.mark.parametrize(
    "record, field",
    [
        ({"id": "bad id!"}, "id"),
        ({"id": "x", "preferences": {"review_engagement": 7}}, "preferences.review_engagement"),
        ({"id": "x", "preferences": {"window_shopping": 3}}, "preferences"),
        ({"id": "x", "favourite_colour": "blue"}, "favourite_colour"),
        ({"name": "No Id"}, "id"),
    ],
)
def test_malformed_native_personas_name_the_field(tmp_path, record, field):
    with pytest.raises(ValidationError) as caught:
        persona_from_record(record)
    assert any(".".join(map(str, e["loc"])) == field for e in caught.value.errors())

    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"id": "fine"}, record]))
    with pytest.raises(PersonaSourceError) as caught_file:
        read_native(path)
    assert caught_file.value.field == field and caught_file.value.location == "persona 2"
    assert str(path) in str(caught_file.value)


@pytest.mark.parametrize(
    "record, field",
    [
        ({"id": "x", "preferences": {"quality": "Mostly"}}, "preferences.quality"),
        ({"id": "x", "big_five": {"levels": {"Charisma": "High"}}}, "big_five.levels.Charisma"),
        ({"id": "x", "big_five": {"scores": {"extraversion": 70}}}, "big_five.scores.extraversion"),
    ],
)
def test_friendly_input_errors_name_the_field(record, field):
    with pytest.raises(PersonaSourceError) as caught:
        persona_from_record(record)
    assert caught.value.field == field


def test_broken_files(tmp_path):
    (tmp_path / "bad.yaml").write_text("id: x\npreferences: [unclosed\n")
    with pytest.raises(PersonaSourceError, match="YAML"):
        load_personas(tmp_path / "bad.yaml")
    (tmp_path / "dupe.json").write_text(json.dumps([{"id": "x"}, {"id": "x"}]))
    with pytest.raises(PersonaSourceError, match="twice"):
        load_personas(tmp_path / "dupe.json")
    (tmp_path / "people.txt").write_text("id: x")
    with pytest.raises(PersonaSourceError, match="unknown persona file type"):
        load_personas(tmp_path / "people.txt")
    with pytest.raises(PersonaSourceError, match="no such file"):
        load_personas(tmp_path / "missing.yaml")
    (tmp_path / "scalar.json").write_text("42")
    with pytest.raises(PersonaSourceError, match="persona object"):
        load_personas(tmp_path / "scalar.json")


# ---- detection -----------------------------------------------------------------------------------


def test_load_personas_detects_each_format(tmp_path, user_rows, jsonl_records, sample_users):
    assert load_personas(_write_jsonl(tmp_path / "rows.jsonl", user_rows)) == sample_users
    (tmp_path / "row.json").write_text(json.dumps(user_rows[0]))  # one user-table row saved by hand
    assert load_personas(tmp_path / "row.json") == sample_users[:1]
    (tmp_path / "digest.yaml").write_text(json.dumps(jsonl_records[:2]))
    assert [p.source for p in load_personas(tmp_path / "digest.yaml")] == ["opera_personas_jsonl"] * 2


def test_persona_from_record_accepts_all_three_kinds(user_rows, jsonl_records):
    assert persona_from_record(user_rows[0]).source == "opera_user_table"
    assert persona_from_record(jsonl_records[0]).source == "opera_personas_jsonl"
    assert persona_from_record({"id": "n-1"}).source == "native"
    with pytest.raises(PersonaSourceError, match="object"):
        persona_from_record(["not", "a", "record"])  # type: ignore[arg-type]
