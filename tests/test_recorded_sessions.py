"""Reading recorded sessions in the OPeRA action-table format."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from agent.evaluation.recorded_sessions import RecordedSessionsError, read_action_table, user_id_from_session_id

SMALL = Path(__file__).resolve().parent / "fixtures" / "opera_small"


def test_parquet_and_jsonl_give_the_same_sessions():
    with_pages = read_action_table(SMALL / "actions.parquet")
    page_free = read_action_table(SMALL / "actions_page_free.jsonl")
    assert [s.session_id for s in with_pages] == [s.session_id for s in page_free]
    for a, b in zip(with_pages, page_free):
        assert [st.action for st in a.steps] == [st.action for st in b.steps]
        assert [st.click_type for st in a.steps] == [st.click_type for st in b.steps]
    assert all(st.simplified_html for s in with_pages for st in s.steps)
    assert not any(st.simplified_html for s in page_free for st in s.steps)
    first = with_pages[0]
    assert first.user_id == "7f0c8207-6a6f-49cd-9d7e-17987cfafcb9"
    assert first.steps[0].action.type == "input" and first.steps[0].action.text == "usb c cable"
    assert first.steps[-1].click_type == "purchase"
    assert with_pages[1].steps[-1].action.type == "terminate"


def test_order_by_timestamp_else_file_order(tmp_path):
    rows = [
        {"session_id": "u1_2025-01-01T00:00:00Z_x", "action_type": "click", "semantic_id": "b", "timestamp": "2025-01-01T00:00:02Z"},
        {"session_id": "u1_2025-01-01T00:00:00Z_x", "action_type": "click", "semantic_id": "a", "timestamp": "2025-01-01T00:00:01Z"},
        {"session_id": "u2_2025-01-01T00:00:00Z_x", "action_type": "click", "semantic_id": "b"},
        {"session_id": "u2_2025-01-01T00:00:00Z_x", "action_type": "scroll"},
        {"session_id": "u2_2025-01-01T00:00:00Z_x", "action_type": "click", "semantic_id": "a"},
    ]
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    sessions = read_action_table(path)
    assert [st.action.name for st in sessions[0].steps] == ["a", "b"]
    assert [st.action.name for st in sessions[1].steps] == ["b", "a"]  # no timestamps: file order, scroll skipped
    assert sessions[0].user_id == "u1"


def test_sessions_filter_limit_and_directory(tmp_path):
    frame = pd.read_parquet(SMALL / "actions.parquet")
    (tmp_path / "dir").mkdir()
    frame.iloc[:10].to_parquet(tmp_path / "dir" / "train-0.parquet")
    frame.iloc[10:].to_parquet(tmp_path / "dir" / "train-1.parquet")
    all_sessions = read_action_table(tmp_path / "dir")
    assert len(all_sessions) == 5 and sum(len(s.steps) for s in all_sessions) == len(frame)
    wanted = all_sessions[2].session_id
    assert [s.session_id for s in read_action_table(tmp_path / "dir", sessions=[wanted])] == [wanted]
    assert len(read_action_table(SMALL / "actions.parquet", limit=2)) == 2
    with pytest.raises(RecordedSessionsError, match="none of the requested"):
        read_action_table(SMALL / "actions.parquet", sessions=["nope"])


def test_double_encoded_page_meta_and_csv(tmp_path):
    frame = pd.read_parquet(SMALL / "actions.parquet").drop(columns=["simplified_html"])
    frame.loc[0, "page_meta"] = json.dumps(json.dumps({"search_term": "usb c cable"}))
    frame.to_csv(tmp_path / "a.csv", index=False)
    sessions = read_action_table(tmp_path / "a.csv")
    assert sessions[0].steps[0].page_meta == {"search_term": "usb c cable"}
    assert sessions[0].steps[2].click_type == "product_link"


def test_missing_click_type_is_inferred_from_the_name(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"session_id": "s", "action_type": "click", "semantic_id": "buybox.purchase_form.buy_now"}))
    assert read_action_table(path)[0].steps[0].click_type == "purchase"


@pytest.mark.parametrize("content, message", [
    ('{"action_type": "click"}', "missing required column"),
    ('{"session_id": "s", "action_type": "click"}', "without semantic_id"),
    ("not json at all", "cannot read"),
])
def test_malformed_tables(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordedSessionsError, match=message):
        read_action_table(path)


def test_unsupported_and_missing_files(tmp_path):
    with pytest.raises(RecordedSessionsError):
        read_action_table(tmp_path / "x.xlsx")
    with pytest.raises(RecordedSessionsError):
        read_action_table(tmp_path / "missing.parquet")


def test_user_id_from_session_id():
    known = ["7f0c8207-6a6f-49cd-9d7e-17987cfafcb9"]
    assert user_id_from_session_id("7f0c8207_6a6f_49cd_9d7e_17987cfafcb9_2025_04_03T02", known) == known[0]
    assert user_id_from_session_id("abc_2025-04-03T02:01:30Z_2025-04-03T03:00:00Z") == "abc"
    assert user_id_from_session_id("no-date-here") is None
