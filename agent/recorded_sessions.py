"""Read recorded sessions in the OPeRA action-table format (parquet, CSV or JSONL) into ordered steps.

The files are read by personas.table_files, the reader of the user table too; this module turns rows into steps.

Columns as in OPeRA's release (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0): session_id, action_id,
timestamp, action_type, click_type, semantic_id, input_text, url, page_meta, simplified_html, rationale,
products, element_meta, mouse_position. Only session_id and action_type are required. Scrolls, navigations
and tab switches of the full table are skipped: the benchmark's action space is click / input / terminate.

The full table carries ~100K characters of HTML per row, so a parquet read asked for a few sessions
(`sessions=` or `limit=`) first reads the two small key columns and then only the rows it needs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from agent.actions import Action, ClickAction, InputAction, TerminateAction
from agent.page.click_types import infer_click_type
from agent.screenshots import cell_bytes
from agent.timestamps import epoch_seconds
from personas.table_files import TableReadError, is_parquet, read_table

REQUIRED_COLUMNS = ("session_id", "action_type")
IMAGE_COLUMN = "image"  # the screenshot of the page before the action (an image struct in the release's parquet)
KEPT_ACTION_TYPES = frozenset({"click", "input", "terminate"})
# "_2025-04-03T..." or "_2025_04_03T..." (copies of the ids fold '-' and ':' into '_'), or compact "_20250403T".
_DATE_TOKEN = re.compile(r"_(?=2\d{3}([-_])\d{2}\1\d{2}(?:[T_ ]|$)|2\d{7}T)")


class RecordedSessionsError(ValueError):
    """The action table cannot be read: the file and the problem are in the message."""


@dataclass
class RecordedStep:
    action: Action
    click_type: str | None  # OPeRA click type of a click (None for input / terminate)
    rationale: str | None = None
    url: str | None = None
    timestamp: str | None = None  # ISO 8601 as recorded (datetimes and epoch numbers are rendered ISO, UTC)
    simplified_html: str | None = None
    action_id: str | None = None
    page_meta: dict | None = None
    screenshot: bytes | None = None  # the release's `image` of the page, read only when asked (screenshots=True)


@dataclass
class RecordedSession:
    session_id: str
    user_id: str | None
    steps: list[RecordedStep] = field(default_factory=list)


def _is_missing(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return value is pd.NaT or value is pd.NA


def _text(value: object) -> str | None:
    """A cell as text; None for missing or blank. Whole floats (ids pandas widened) lose their '.0'."""
    if _is_missing(value):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = value if isinstance(value, str) else str(value)
    return text if text.strip() else None


def _page_meta(value: object) -> dict | None:
    """page_meta is a dict, a JSON string, or a JSON string of a JSON string (all seen in OPeRA)."""
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


def _epoch_to_datetime(number: float) -> datetime:
    """Epoch seconds, or milli/micro/nanoseconds, told apart by magnitude (years 1973..5138 in seconds)."""
    scale = 1.0
    for bound, divisor in ((1e11, 1.0), (1e14, 1e3), (1e17, 1e6)):
        if abs(number) < bound:
            scale = divisor
            break
    else:
        scale = 1e9
    return datetime.fromtimestamp(number / scale, tz=UTC)


def _timestamp(value: object) -> tuple[str | None, float | None]:
    """(the timestamp as text, epoch seconds for ordering or None when it cannot be parsed)."""
    if _is_missing(value):
        return None, None
    moment: datetime | None = None
    text: str | None = None
    if isinstance(value, datetime):  # parquet timestamp columns
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        moment = _epoch_to_datetime(float(value))
    else:
        text = _text(value)
        if text is None:
            return None, None
        seconds = epoch_seconds(text)
        if seconds is not None:
            return text, seconds
        try:
            moment = _epoch_to_datetime(float(text))
        except (ValueError, OverflowError, OSError):
            return text, None
        text = None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # naive times are read as UTC, so a session orders consistently
    return text or moment.isoformat(), moment.timestamp()


def user_id_from_session_id(session_id: str, known_user_ids: Collection[str] = ()) -> str | None:
    """The user of an OPeRA session id `{user_id}_{start_iso}_{end_iso}`.

    A known user id the session id starts with wins (the longest, compared with '-' and '_' and case folded
    alike, and ending at a separator, so an 8-character user prefix also works); else the part before the
    first date-like "_2025-..." token; else None.
    """
    folded = session_id.replace("-", "_").lower()
    best: str | None = None
    for user_id in known_user_ids:
        key = user_id.replace("-", "_").lower()
        if (
            key
            and folded.startswith(key)
            and (len(folded) == len(key) or folded[len(key)] == "_")
            and (best is None or len(key) > len(best))
        ):
            best = user_id
    if best is not None:
        return best
    match = _DATE_TOKEN.search(session_id)
    return session_id[: match.start()] if match and match.start() > 0 else None


# ----------------------------------------------------------------------------------------------- reading files


def _check_columns(source: Path | str, columns: Collection[str]) -> None:
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise RecordedSessionsError(
            f"{source}: missing required column(s) {missing}; found {sorted(columns)[:20]}"
            " (point at the OPeRA action table, e.g. OPeRA_filtered/action/)"
        )


def _selected_session_ids(path: Path, wanted: set[str] | None, limit: int | None) -> list[str]:
    """The ids a filtered parquet read needs, from the session_id and action_type columns only (first-seen order)."""
    parts = list(read_table(path, columns=REQUIRED_COLUMNS))
    for part in parts:  # every file, before an early return on `limit`: the filtered read opens them all
        _check_columns(part.path, part.columns if part.columns is not None else ())
    chosen: dict[str, None] = {}
    for part in parts:
        for _, row in part.rows:
            session_id = _text(row["session_id"])
            if session_id is None or (_text(row["action_type"]) or "").strip().lower() not in KEPT_ACTION_TYPES:
                continue
            if (wanted is None or session_id in wanted) and session_id not in chosen:
                if limit is not None and len(chosen) >= limit:
                    return list(chosen)
                chosen[session_id] = None
    return list(chosen)


def _rows(
    path: Path, wanted: set[str] | None, limit: int | None, screenshots: bool = False
) -> Iterator[tuple[Path, int, dict]]:
    """(file, row number in it, row); the columns of every file are checked before its rows are used.

    A parquet read asked for a few sessions reads only their rows (see the module docstring); the screenshots
    (the `image` column, most of a release's bytes) are read only when asked for.
    """
    exclude = () if screenshots else (IMAGE_COLUMN,)
    try:
        if is_parquet(path) and (wanted is not None or limit is not None):
            ids = _selected_session_ids(path, wanted, limit)
            parts = read_table(path, keep=("session_id", ids), exclude=exclude) if ids else iter(())
        else:
            parts = read_table(path, exclude=exclude)
        for part in parts:
            rows = part.rows if part.columns is not None else list(part.rows)
            _check_columns(
                part.path, part.columns if part.columns is not None else {key for _, row in rows for key in row}
            )
            for number, (_, row) in enumerate(rows, start=1):
                yield part.path, number, row
    except TableReadError as error:
        where = f"{error.location}: " if error.location else ""
        raise RecordedSessionsError(f"{error.path}: {where}cannot read the action table: {error.reason}") from error


# ------------------------------------------------------------------------------------------------ rows to steps


def _action(row: dict, source: Path, line: int) -> tuple[Action, str | None] | None:
    kind = (_text(row.get("action_type")) or "").strip().lower()
    if kind not in KEPT_ACTION_TYPES:
        return None  # scroll, navigation, tab_activate: not actions in the benchmark's space
    if kind == "terminate":
        return TerminateAction(), None
    name = _text(row.get("semantic_id"))
    if not name:
        raise RecordedSessionsError(f"{source}: row {line}: a {kind} without semantic_id")
    try:
        if kind == "input":
            return InputAction(name=name, text=_text(row.get("input_text")) or ""), None
        return ClickAction(name=name), _text(row.get("click_type")) or infer_click_type(name)
    except ValidationError as error:
        raise RecordedSessionsError(f"{source}: row {line}: invalid {kind} action: {error}") from error


def _step(
    row: dict, action: Action, click_type: str | None, screenshots_from: Path | None = None
) -> tuple[RecordedStep, float | None]:
    timestamp, order_key = _timestamp(row.get("timestamp"))
    step = RecordedStep(
        action=action,
        click_type=click_type,
        rationale=_text(row.get("rationale")),
        url=_text(row.get("url")),
        timestamp=timestamp,
        simplified_html=_text(row.get("simplified_html")),
        action_id=_text(row.get("action_id")),
        page_meta=_page_meta(row.get("page_meta")),
        screenshot=cell_bytes(row.get(IMAGE_COLUMN), screenshots_from) if screenshots_from else None,
    )
    return step, order_key


def read_action_table(
    path: str | Path, *, sessions: Collection[str] | None = None, limit: int | None = None, screenshots: bool = False
) -> list[RecordedSession]:
    """Sessions in first-seen order (only those in `sessions` when given, at most `limit` of them). With
    `screenshots`, each step keeps the bytes of its row's `image` (unchecked: agent/screenshots.py checks them).

    Steps are ordered by timestamp when every kept step of the session has a parseable one (ties keep file
    order), else kept in file order. Raises RecordedSessionsError for unreadable files, missing columns,
    malformed rows, or when none of the requested sessions is in the table.
    """
    path = Path(path)
    if limit is not None and limit < 0:
        raise RecordedSessionsError(f"{path}: limit must be >= 0, got {limit}")
    wanted = {str(s) for s in sessions} if sessions else None
    by_session: dict[str, RecordedSession] = {}
    ordered: dict[str, list[tuple[float | None, int, RecordedStep]]] = {}
    sequence = 0
    for source, line, row in _rows(path, wanted, limit, screenshots):
        session_id = _text(row.get("session_id"))
        if not session_id:
            raise RecordedSessionsError(f"{source}: row {line}: empty session_id")
        if wanted is not None and session_id not in wanted:
            continue
        parsed = _action(row, source, line)
        if parsed is None:
            continue
        if session_id not in by_session:
            if limit is not None and len(by_session) >= limit:
                continue
            user_id = _text(row.get("user_id")) or user_id_from_session_id(session_id)
            by_session[session_id] = RecordedSession(session_id=session_id, user_id=user_id)
            ordered[session_id] = []
        step, order_key = _step(row, *parsed, screenshots_from=source.parent if screenshots else None)
        ordered[session_id].append((order_key, sequence, step))
        sequence += 1
    for session_id, steps in ordered.items():
        if all(key is not None for key, _, _ in steps):
            steps.sort(key=lambda item: (item[0], item[1]))
        by_session[session_id].steps = [step for _, _, step in steps]
    if wanted is not None and not by_session:
        raise RecordedSessionsError(f"{path}: none of the requested sessions is in the table")
    return list(by_session.values())
