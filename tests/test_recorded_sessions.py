"""Reading recorded sessions in the OPeRA action-table format (fixture: tests/fixtures/opera_small)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

from agent.page.parse import parse_page
from agent.recorded_sessions import RecordedSessionsError, read_action_table, user_id_from_session_id
from tests.fixtures.make_opera_dataset import USER_A, USER_B, USER_C, build

SMALL = Path(__file__).resolve().parent / "fixtures" / "opera_small"


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def names(session) -> list[str]:
    return [getattr(step.action, "name", step.action.type) for step in session.steps]


def test_parquet_and_jsonl_give_the_same_sessions():
    from_parquet = read_action_table(SMALL / "actions.parquet")
    from_jsonl = read_action_table(SMALL / "actions.jsonl")
    assert from_parquet == from_jsonl  # every field of every step, pages included
    page_free = read_action_table(SMALL / "actions_page_free.jsonl")
    assert [[s.action for s in x.steps] for x in page_free] == [[s.action for s in x.steps] for x in from_parquet]
    assert not any(step.simplified_html for x in page_free for step in x.steps)


def test_the_fixture_sessions():
    sessions = read_action_table(SMALL / "actions.parquet")
    assert [s.user_id for s in sessions] == [USER_A, USER_A, USER_B, USER_B, USER_C]
    assert [len(s.steps) for s in sessions] == [5, 6, 4, 5, 4]
    first = sessions[0]
    assert first.steps[0].action.type == "input" and first.steps[0].action.text == "usb c cable"
    assert first.steps[0].rationale.startswith("My old charging cable")
    assert [s.click_type for s in first.steps] == [None, "search", "product_link", "product_option", "purchase"]
    assert [s.steps[-1].action.type for s in sessions] == ["click", "terminate", "click", "terminate", "click"]
    for session in sessions:
        moments = [datetime.fromisoformat(s.timestamp) for s in session.steps]
        assert moments == sorted(moments)
    # B2's rows are stored newest first; the reader puts them back in time order
    assert names(sessions[3])[0] == "nav_bar.search_input" and names(sessions[3])[-1] == "terminate"
    assert sessions[3].steps[2].page_meta == {"search_term": "usb c cable"}


def test_every_gold_element_is_a_candidate_of_its_page():
    for session in read_action_table(SMALL / "actions.parquet"):
        for step in session.steps:
            if step.action.type == "terminate":
                continue
            page = parse_page(step.simplified_html, url=step.url)
            assert step.action.name in page.by_name, (session.session_id, step.action.name)
            assert len(step.simplified_html) < 6_000  # a few KB a page keeps the fixture small


def test_the_committed_fixture_is_what_the_generator_writes(tmp_path):
    sizes = build(tmp_path / "opera_small")
    assert sum(sizes.values()) < 300_000
    for name in ("actions.jsonl", "actions_page_free.jsonl", "users.csv", "personas.jsonl"):
        assert (tmp_path / "opera_small" / name).read_bytes() == (SMALL / name).read_bytes(), name
    assert read_action_table(tmp_path / "opera_small" / "actions.parquet") == read_action_table(
        SMALL / "actions.parquet"
    )
    users = {json.loads(line)["user_id"] for line in (SMALL / "personas.jsonl").read_text().splitlines()}
    assert users == {USER_A, USER_B, USER_C}


def test_order_by_timestamp_else_file_order(tmp_path):
    rows = [
        {
            "session_id": "u1_2025-01-01T00:00:00Z_x",
            "action_type": "click",
            "semantic_id": "b",
            "timestamp": "2025-01-01T00:00:02Z",
        },
        {
            "session_id": "u1_2025-01-01T00:00:00Z_x",
            "action_type": "click",
            "semantic_id": "a",
            "timestamp": "2025-01-01T00:00:01Z",
        },
        {"session_id": "u2_2025-01-01T00:00:00Z_x", "action_type": "click", "semantic_id": "b"},
        {"session_id": "u2_2025-01-01T00:00:00Z_x", "action_type": "scroll"},
        {"session_id": "u2_2025-01-01T00:00:00Z_x", "action_type": "click", "semantic_id": "a"},
        # one step without a timestamp: the whole session keeps file order
        {
            "session_id": "u3_2025-01-01T00:00:00Z_x",
            "action_type": "click",
            "semantic_id": "b",
            "timestamp": "2025-01-01T00:00:02Z",
        },
        {"session_id": "u3_2025-01-01T00:00:00Z_x", "action_type": "click", "semantic_id": "a"},
        # an unparseable timestamp likewise
        {
            "session_id": "u4_2025-01-01T00:00:00Z_x",
            "action_type": "click",
            "semantic_id": "b",
            "timestamp": "2025-01-01T00:00:02Z",
        },
        {
            "session_id": "u4_2025-01-01T00:00:00Z_x",
            "action_type": "click",
            "semantic_id": "a",
            "timestamp": "yesterday",
        },
        # equal timestamps keep file order
        {
            "session_id": "u5_2025-01-01T00:00:00Z_x",
            "action_type": "click",
            "semantic_id": "b",
            "timestamp": "2025-01-01T00:00:01Z",
        },
        {"session_id": "u5_2025-01-01T00:00:00Z_x", "action_type": "terminate", "timestamp": "2025-01-01T00:00:01Z"},
        {
            "session_id": "u5_2025-01-01T00:00:00Z_x",
            "action_type": "click",
            "semantic_id": "a",
            "timestamp": "2025-01-01T00:00:00Z",
        },
    ]
    sessions = read_action_table(write_jsonl(tmp_path / "a.jsonl", rows))
    assert [names(s) for s in sessions] == [["a", "b"], ["b", "a"], ["b", "a"], ["b", "a"], ["a", "b", "terminate"]]
    assert [s.user_id for s in sessions] == ["u1", "u2", "u3", "u4", "u5"]
    assert sessions[3].steps[1].timestamp == "yesterday"  # kept as recorded


def test_timestamp_columns_typed_as_datetimes_or_epoch_numbers(tmp_path):
    base = datetime(2025, 4, 3, 14, 0, tzinfo=UTC)
    frame = pd.DataFrame(
        {
            "session_id": ["s_2025-04-03T14:00:00Z"] * 3,
            "action_type": ["click"] * 3,
            "semantic_id": ["c", "a", "b"],
            "timestamp": pd.to_datetime(
                [base.timestamp() + 2, base.timestamp(), base.timestamp() + 1], unit="s", utc=True
            ),
        }
    )
    frame.to_parquet(tmp_path / "t.parquet")
    session = read_action_table(tmp_path / "t.parquet")[0]
    assert names(session) == ["a", "b", "c"]
    assert datetime.fromisoformat(session.steps[0].timestamp) == base
    # epoch milliseconds (JSON numbers and CSV text alike)
    rows = [
        {"session_id": "s", "action_type": "click", "semantic_id": n, "timestamp": base.timestamp() * 1000 + dt}
        for n, dt in (("b", 500), ("a", 0))
    ]
    assert names(read_action_table(write_jsonl(tmp_path / "e.jsonl", rows))[0]) == ["a", "b"]
    pd.DataFrame(rows).to_csv(tmp_path / "e.csv", index=False)
    session = read_action_table(tmp_path / "e.csv")[0]
    assert names(session) == ["a", "b"] and datetime.fromisoformat(session.steps[0].timestamp) == base


def test_sessions_filter_limit_and_directory(tmp_path):
    frame = pd.read_parquet(SMALL / "actions.parquet")
    (tmp_path / "dir").mkdir()
    frame.iloc[:13].to_parquet(tmp_path / "dir" / "train-00000-of-00002.parquet")  # splits session B1 across files
    frame.iloc[13:].to_parquet(tmp_path / "dir" / "train-00001-of-00002.parquet")
    everything = read_action_table(SMALL / "actions.parquet")
    assert read_action_table(tmp_path / "dir") == everything
    wanted = [everything[4].session_id, everything[2].session_id]
    for source in (tmp_path / "dir", SMALL / "actions.parquet", SMALL / "actions.jsonl"):
        picked = read_action_table(source, sessions=wanted)
        assert picked == [everything[2], everything[4]]  # table order, not request order
        assert read_action_table(source, limit=2) == everything[:2]
        assert read_action_table(source, sessions=wanted, limit=1) == [everything[2]]
        assert read_action_table(source, limit=0) == []
        with pytest.raises(RecordedSessionsError, match="none of the requested"):
            read_action_table(source, sessions=["nope"])
    with pytest.raises(RecordedSessionsError, match="limit"):
        read_action_table(SMALL / "actions.parquet", limit=-1)


def test_limit_counts_only_sessions_with_benchmark_actions(tmp_path):
    rows = [
        {"session_id": "only_scrolls", "action_type": "scroll"},
        {"session_id": "real", "action_type": "navigation"},
        {"session_id": "real", "action_type": "tab_activate"},
        {"session_id": "real", "action_type": "click", "semantic_id": "nav_bar.homepage"},
        {"session_id": "later", "action_type": "terminate"},
    ]
    pd.DataFrame(rows).to_parquet(tmp_path / "full.parquet")
    for path in (tmp_path / "full.parquet", write_jsonl(tmp_path / "full.jsonl", rows)):
        assert [s.session_id for s in read_action_table(path)] == ["real", "later"]
        assert [s.session_id for s in read_action_table(path, limit=1)] == ["real"]


def test_page_meta_single_double_encoded_dict_or_broken(tmp_path):
    meta = {"search_term": "usb c cable", "cart_items": 1}
    values = [json.dumps(meta), json.dumps(json.dumps(meta)), meta, "{not json", None]
    rows = [
        {"session_id": "s", "action_type": "click", "semantic_id": f"e{i}", "page_meta": v}
        for i, v in enumerate(values)
    ]
    steps = read_action_table(write_jsonl(tmp_path / "m.jsonl", rows))[0].steps
    assert [s.page_meta for s in steps] == [meta, meta, meta, None, None]


def test_csv_and_inputs(tmp_path):
    frame = pd.read_parquet(SMALL / "actions.parquet").drop(columns=["simplified_html"])
    frame.to_csv(tmp_path / "a.csv", index=False)
    from_csv = read_action_table(tmp_path / "a.csv")
    page_free = read_action_table(SMALL / "actions_page_free.jsonl")
    assert from_csv == page_free
    rows = [{"session_id": "s", "action_type": "input", "semantic_id": "nav_bar.search_input"}]
    assert read_action_table(write_jsonl(tmp_path / "i.jsonl", rows))[0].steps[0].action.text == ""


def test_missing_click_type_is_inferred_from_the_name(tmp_path):
    rows = [
        {"session_id": "s", "action_type": "Click", "semantic_id": "buybox.purchase_form.buy_now"},
        {
            "session_id": "s",
            "action_type": "click",
            "semantic_id": "buybox.purchase_form.buy_now",
            "click_type": "other",
        },
    ]
    steps = read_action_table(write_jsonl(tmp_path / "a.jsonl", rows))[0].steps
    assert [s.click_type for s in steps] == ["purchase", "other"]  # a recorded click type is kept as is


def test_user_id_column_wins_over_the_session_id(tmp_path):
    rows = [
        {"session_id": "abc_2025-04-03T02:01:30Z_2025-04-03T03:00:00Z", "user_id": "u-1", "action_type": "terminate"}
    ]
    assert read_action_table(write_jsonl(tmp_path / "u.jsonl", rows))[0].user_id == "u-1"


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"action_type": "click"}\n', "missing required column"),
        ('{"session_id": "s", "action_type": "click"}\n', "row 1: a click without semantic_id"),
        ('{"session_id": "s", "action_type": "input", "semantic_id": ""}\n', "without semantic_id"),
        ('{"session_id": "", "action_type": "terminate"}\n', "empty session_id"),
        ('{"session_id": "s", "action_type": "terminate"}\nnot json at all\n', "line 2: cannot read"),
        ('["s", "click"]\n', "expected a JSON object"),
        ('{"session_id": "s", "action_type": "click", "semantic_id": "' + "x" * 3000 + '"}\n', "invalid click action"),
        ("", "missing required column"),
    ],
)
def test_malformed_jsonl(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordedSessionsError, match=message) as error:
        read_action_table(path)
    assert str(path) in str(error.value)


def test_malformed_files(tmp_path):
    cases = []
    pd.DataFrame({"user_id": ["u"], "survey": ["{}"]}).to_parquet(tmp_path / "users.parquet")
    cases.append((tmp_path / "users.parquet", "missing required column.*action_type"))
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1 this is not parquet")
    cases.append((tmp_path / "corrupt.parquet", "cannot read"))
    (tmp_path / "a.csv").write_text("session_id,semantic_id\ns,x\n")
    cases.append((tmp_path / "a.csv", "missing required column"))
    (tmp_path / "a.json").write_text('{"session_id": "s"}')
    cases.append((tmp_path / "a.json", "JSON array"))
    cases.append((tmp_path / "x.xlsx", "unsupported format"))
    cases.append((tmp_path / "missing.parquet", "cannot read"))
    (tmp_path / "empty_dir").mkdir()
    cases.append((tmp_path / "empty_dir", "no \\*.parquet"))
    for path, message in cases:
        with pytest.raises(RecordedSessionsError, match=message):
            read_action_table(path)
    # a directory mixing in a table of another kind is refused, naming the file
    (tmp_path / "mixed").mkdir()
    pd.read_parquet(SMALL / "actions.parquet").to_parquet(tmp_path / "mixed" / "a.parquet")
    pd.DataFrame({"user_id": ["u"]}).to_parquet(tmp_path / "mixed" / "b.parquet")
    for kwargs in ({}, {"limit": 1}):
        with pytest.raises(RecordedSessionsError, match=r"b\.parquet: missing required column"):
            read_action_table(tmp_path / "mixed", **kwargs)


def test_a_json_array_is_read_like_jsonl(tmp_path):
    rows = [json.loads(line) for line in (SMALL / "actions.jsonl").read_text().splitlines()]
    (tmp_path / "a.json").write_text(json.dumps(rows))
    assert read_action_table(tmp_path / "a.json") == read_action_table(SMALL / "actions.jsonl")


def test_user_id_from_session_id():
    known = [USER_A, "7f0c8207", "abc"]
    underscored = "7f0c8207_6a6f_49cd_9d7e_17987cfafcb9_2025_04_03T02_01_30_214000Z_2025_04_03T02_27_47_092000Z"
    assert user_id_from_session_id(underscored, known) == USER_A  # the longest known id wins
    assert user_id_from_session_id(underscored, ["7F0C8207"]) == "7F0C8207"  # a user prefix, case folded
    assert user_id_from_session_id("abcd_2025-04-03T02:01:30Z_x", ["abc"]) == "abcd"  # "abc" ends mid-id
    assert user_id_from_session_id(f"{USER_A}_2025-04-03T02:01:30.214000Z_2025-04-03T02:27:47.092000Z") == USER_A
    assert user_id_from_session_id(underscored) == "7f0c8207_6a6f_49cd_9d7e_17987cfafcb9"  # no known ids: as written
    assert user_id_from_session_id("u_20250403T020130Z_x") == "u"
    # uuid groups of digits are not dates
    assert user_id_from_session_id("2345_6789_2025-04-03T02:01:30Z") == "2345_6789"
    assert user_id_from_session_id("no-date-here") is None
    assert user_id_from_session_id("_2025-04-03T02:01:30Z") is None
