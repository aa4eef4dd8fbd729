"""Recorded OPeRA sessions (the full action table) as benchmark sessions with names, texts and pages.

The action table (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) gives what the timelines lack: the
element acted on, the typed text, the URL and the page. Sessions are read by
agent.recorded_sessions (shared with evaluation); this module only maps them into the behaviour model's shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from agent.actions import Action
from agent.behaviour.history_view import click_type_from_name
from agent.behaviour.labels import INPUT, TERMINATE
from agent.calibration.sessions import BehaviourSession, BehaviourStep, close_session
from agent.page.click_types import CLICK_TYPES
from agent.page.page_types import page_type, page_type_feature
from agent.timestamps import epoch_seconds

_USER_ID = re.compile(r"^([0-9a-fA-F]{8})")


def user_prefix(session_id: str, user_id: str | None = None) -> str:
    source = user_id or session_id
    match = _USER_ID.match(source)
    return match.group(1).lower() if match else source[:8]


class RecordedStep(Protocol):
    """A step of a recorded session; its click_type, url, timestamp, rationale and simplified_html are read when
    it has them."""

    @property
    def action(self) -> Action: ...


class Recorded(Protocol):
    """A recorded session (agent.recorded_sessions); its user_id is read when it has one."""

    @property
    def session_id(self) -> str: ...

    @property
    def steps(self) -> Sequence[RecordedStep]: ...


def step_of(recorded_step: RecordedStep) -> BehaviourStep:
    action = recorded_step.action
    if action.type == "input":
        label = INPUT
    elif action.type == "terminate":
        label = TERMINATE
    else:
        click_type = getattr(recorded_step, "click_type", None)
        label = click_type if click_type in CLICK_TYPES else click_type_from_name(action.name)
    url = getattr(recorded_step, "url", None)
    timestamp = getattr(recorded_step, "timestamp", None)
    return BehaviourStep(
        label=label,
        timestamp=epoch_seconds(timestamp) if isinstance(timestamp, str) else timestamp,
        name=getattr(action, "name", None),
        text=getattr(action, "text", None),
        url=url,
        page_type=page_type_feature(page_type(url)),  # serving's rule, from the URL alone
        rationale=getattr(recorded_step, "rationale", None),
    )


def session_of(recorded: Recorded) -> BehaviourSession | None:
    """A recorded session in benchmark form (None when it has no click or input)."""
    steps = [step_of(step) for step in recorded.steps]
    body = [step for step in steps if step.label != TERMINATE]
    if not body:
        return None
    ending = steps[-1] if steps[-1].label == TERMINATE else None
    closed = close_session(body, end_time=ending.timestamp if ending else None)
    if ending is not None and closed[-1].label == TERMINATE:
        closed[-1] = BehaviourStep(
            label=TERMINATE, timestamp=closed[-1].timestamp, url=ending.url, page_type=ending.page_type
        )
    return BehaviourSession(
        session_id=recorded.session_id,
        user_prefix=user_prefix(recorded.session_id, getattr(recorded, "user_id", None)),
        steps=tuple(closed),
        extra={
            "pages": [
                getattr(step, "simplified_html", None) for step in recorded.steps if step.action.type != "terminate"
            ]
        },
    )


def sessions_of(recorded_sessions: Iterable) -> list[BehaviourSession]:
    out = []
    for recorded in recorded_sessions:
        session = session_of(recorded)
        if session is not None:
            out.append(session)
    return out


def session_key(session_id: str) -> str:
    """A form of a session id shared by the timelines and the action table (for de-duplication)."""
    return re.sub(r"[^0-9a-z]+", "_", session_id.lower()).strip("_")


def merge_sessions(primary: Sequence[BehaviourSession], extra: Sequence[BehaviourSession]) -> list[BehaviourSession]:
    """primary plus the sessions of extra not already in primary (the timelines are a slice of the table)."""
    seen = {session_key(s.session_id) for s in primary}
    return list(primary) + [s for s in extra if session_key(s.session_id) not in seen]
