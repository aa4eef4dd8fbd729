"""Read recorded sessions in the OPeRA action-table format (parquet, CSV or JSONL) into ordered steps.

Columns as in OPeRA's release (Wang et al. 2025, arXiv 2506.05606): session_id, action_id, timestamp,
action_type, click_type, semantic_id, input_text, url, page_meta, simplified_html, rationale, ... Only
session_id and action_type are required; scrolls, navigations and tab switches of the full table are skipped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

from agent.actions import Action, ClickAction, InputAction, TerminateAction
from agent.click_types import infer_click_type

REQUIRED_COLUMNS = ("session_id", "action_type")
_DATE_TOKEN = re.compile(r"_\d{4}-\d{2}-\d{2}T")


class RecordedSessionsError(ValueError):
    """The action table cannot be read: the file and the problem are in the message."""


@dataclass
class RecordedStep:
    action: Action
    click_type: str | None
    rationale: str | None = None
    url: str | None = None
    timestamp: str | None = None
    simplified_html: str | None = None
    action_id: str | None = None
    page_meta: dict | None = None


@dataclass
class RecordedSession:
    session_id: str
    user_id: str | None
    steps: list[RecordedStep] = field(default_factory=list)


def _text(value: object) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value)
    return text if text.strip() else None


def _page_meta(value: object) -> dict | None:
    """page_meta is a dict, a JSON string, or a JSON string of a JSON string (seen in OPeRA)."""
    for _ in range(3):
        if isinstance(value, dict):
            return value
        if not isinstance(value, str) or not value.strip():
            return None
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None


def _read_frame(path: Path) -> pd.DataFrame:
    try:
        if path.is_dir():
            files = sorted(path.rglob("*.parquet"))
            if not files:
                raise RecordedSessionsError(f"{path}: no *.parquet files in this directory")
            return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
        suffix = path.suffix.lower()
        if suffix == ".parquet":
            return pd.read_parquet(path)
        if suffix == ".csv":
            return pd.read_csv(path, dtype=str, keep_default_na=False)
        if suffix in (".jsonl", ".json"):
            return pd.read_json(path, lines=suffix == ".jsonl", dtype=False)
    except RecordedSessionsError:
        raise
    except (OSError, ValueError) as error:
        raise RecordedSessionsError(f"{path}: cannot read the action table: {error}") from error
    raise RecordedSessionsError(f"{path}: unsupported format (use parquet, a directory of parquet, CSV or JSONL)")


def _action(row: dict, path: Path, line: int) -> tuple[Action, str | None] | None:
    kind = (_text(row.get("action_type")) or "").strip().lower()
    name = _text(row.get("semantic_id"))
    if kind == "terminate":
        return TerminateAction(), None
    if kind not in ("click", "input"):
        return None  # scroll, navigation, tab_activate: not actions in the benchmark's space
    if not name:
        raise RecordedSessionsError(f"{path}: row {line}: a {kind} without semantic_id")
    if kind == "input":
        return InputAction(name=name, text=_text(row.get("input_text")) or ""), None
    return ClickAction(name=name), _text(row.get("click_type")) or infer_click_type(name)


def _sort_key(timestamp: str | None) -> float | None:
    if not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def user_id_from_session_id(session_id: str, known_user_ids: Collection[str] = ()) -> str | None:
    """OPeRA session ids are `{user_id}_{start_iso}_{end_iso}`; '-' and '_' may differ in copies."""
    folded = session_id.replace("-", "_")
    for user_id in known_user_ids:
        if folded.startswith(user_id.replace("-", "_")):
            return user_id
    match = _DATE_TOKEN.search(session_id)
    return session_id[: match.start()] if match else None


def read_action_table(path: str | Path, *, sessions: Collection[str] | None = None,
                      limit: int | None = None) -> list[RecordedSession]:
    """Sessions in first-seen order, steps by timestamp when every step has one, else in file order."""
    path = Path(path)
    frame = _read_frame(path)
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise RecordedSessionsError(f"{path}: missing required column(s) {missing}; found {list(frame.columns)[:20]}")
    wanted = set(sessions) if sessions else None
    by_session: dict[str, RecordedSession] = {}
    order: dict[str, list[tuple[float | None, int, RecordedStep]]] = {}
    for line, row in enumerate(frame.to_dict("records"), start=1):
        session_id = _text(row.get("session_id"))
        if not session_id:
            raise RecordedSessionsError(f"{path}: row {line}: empty session_id")
        if wanted is not None and session_id not in wanted:
            continue
        parsed = _action(row, path, line)
        if parsed is None:
            continue
        action, click_type = parsed
        timestamp = _text(row.get("timestamp"))
        step = RecordedStep(action=action, click_type=click_type, rationale=_text(row.get("rationale")),
                            url=_text(row.get("url")), timestamp=timestamp,
                            simplified_html=_text(row.get("simplified_html")), action_id=_text(row.get("action_id")),
                            page_meta=_page_meta(row.get("page_meta")))
        if session_id not in by_session:
            if limit is not None and len(by_session) >= limit:
                continue
            user_id = _text(row.get("user_id")) or user_id_from_session_id(session_id)
            by_session[session_id] = RecordedSession(session_id=session_id, user_id=user_id)
            order[session_id] = []
        order[session_id].append((_sort_key(timestamp), line, step))
    for session_id, rows in order.items():
        if all(key is not None for key, _, _ in rows):
            rows.sort(key=lambda r: (r[0], r[1]))
        by_session[session_id].steps = [step for _, _, step in rows]
    if wanted is not None and not by_session:
        raise RecordedSessionsError(f"{path}: none of the requested sessions is in the table")
    return list(by_session.values())
