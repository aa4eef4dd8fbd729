"""Read OPeRA timelines (timelines.jsonl) into benchmark-space sessions.

The timelines are real sessions of the full OPeRA action table (Wang et al. 2025, arXiv 2506.05606,
CC-BY-4.0): every raw event with its type, click type and delay, but no element names or pages. Clicks
and inputs become actions; scrolls, navigations and tab switches in between become counts on the next
action; a session not ending in a purchase click gets a closing terminate. Sessions with no click or
input at all are dropped: the filtered release the benchmark uses has none (its median is 8 actions).
"""

from __future__ import annotations

from pathlib import Path

from agent.behaviour.labels import INPUT
from agent.calibration.sessions import BehaviourSession, BehaviourStep, close_session
from agent.opera_data import opera_data_dir
from agent.page.click_types import CLICK_TYPES
from agent.timestamps import epoch_seconds
from personas.table_files import iter_jsonl


def _epoch_seconds(value: str | None) -> float | None:
    return epoch_seconds(value) if value else None


def session_from_timeline(record: dict) -> BehaviourSession | None:
    """One timelines.jsonl record as a benchmark session, or None when it has no click or input."""
    steps: list[BehaviourStep] = []
    scrolls = navigations = tabs = 0
    for event in record.get("actions", []):
        kind = event.get("action_type")
        if kind == "scroll":
            scrolls += 1
        elif kind == "navigation":
            navigations += 1
        elif kind == "tab_activate":
            tabs += 1
        elif kind in ("click", "input"):
            if kind == "input":
                label = INPUT
            else:
                label = event.get("click_type") or "other"
                if label not in CLICK_TYPES:
                    label = "other"
            steps.append(
                BehaviourStep(
                    label=label,
                    timestamp=_epoch_seconds(event.get("timestamp")),
                    scrolls_before=scrolls,
                    navigations_before=navigations,
                    tabs_before=tabs,
                )
            )
            scrolls = navigations = tabs = 0
    if not steps:
        return None
    start = _epoch_seconds(record.get("start"))
    duration = record.get("duration_s")
    end_time = start + float(duration) if start is not None and isinstance(duration, (int, float)) else None
    return BehaviourSession(
        session_id=str(record.get("session_key", "")),
        user_prefix=str(record.get("user_prefix", ""))[:8],
        steps=tuple(close_session(steps, end_time=end_time, trailing=(scrolls, navigations, tabs))),
    )


def read_timelines(path: Path | str | None = None) -> list[BehaviourSession]:
    """All sessions of a timelines.jsonl file (default: the OPeRA data folder's) with a click or an input, in file
    order."""
    path = Path(path) if path is not None else opera_data_dir() / "timelines.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"timelines file not found: {path}")
    sessions = (session_from_timeline(record) for _, record in iter_jsonl(path))  # bad lines: ValueError with the line
    return [session for session in sessions if session is not None]
