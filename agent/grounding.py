"""Grounding: an action must be something this page lets the person do."""

from __future__ import annotations

import re

from agent.actions import Action, ClickAction, InputAction
from agent.page.candidate import Candidate
from agent.page.click_types import infer_click_type
from agent.page.observation import Observation

_SPACES = re.compile(r"\s+")


def resolve_name(name: str, observation: Observation) -> str:
    """Map a near-miss (quotes, spaces, a candidate's visible text) to the candidate's exact name."""
    if name in observation.by_name or observation.empty:
        return name
    cleaned = name.strip().strip("'\"`").strip()
    if cleaned in observation.by_name:
        return cleaned
    folded = _SPACES.sub(" ", cleaned).lower()
    for candidate in observation.candidates:
        if candidate.name.lower() == folded or (candidate.text and candidate.text.lower() == folded):
            return candidate.name
    return cleaned


def normalise(action: Action, observation: Observation) -> Action:
    if isinstance(action, ClickAction):
        return ClickAction(name=resolve_name(action.name, observation))
    if isinstance(action, InputAction):
        name = resolve_name(action.name, observation)
        return InputAction(name=name, text=_resolve_option(action.text, observation.by_name.get(name)))
    return action


def _resolve_option(text: str, candidate: Candidate | None) -> str:
    """A drop-down's option named in another case or spacing becomes the option's own text."""
    if candidate is None or not candidate.options or text in candidate.options:
        return text
    folded = _SPACES.sub(" ", text).strip().lower()
    return next((option for option in candidate.options if option.lower() == folded), text)


def grounding_error(action: Action, observation: Observation) -> str | None:
    """Why the action cannot be done on this page, or None when it can (page-free: any well-formed action)."""
    if action.type == "terminate" or observation.empty:
        return None
    candidate = observation.by_name.get(action.name)
    if candidate is None:
        return f"'{action.name}' is not an element of this page"
    if action.type == "input" and not candidate.takes_text:
        return f"'{action.name}' is not a text field; it can only be clicked"
    if action.type == "input" and candidate.kind != "input" and action.text not in candidate.options:
        return f"'{action.name}' is a drop-down; choose one of its options: " + "; ".join(candidate.options[:20])
    return None


def rejection(action: Action, error: str) -> str:
    """What a brain is told when its proposal cannot be done here, so it can answer again (one retry)."""
    return f"Your previous answer {action.model_dump_json()} was rejected: {error}."


def click_type_of(action: Action, observation: Observation, details: dict | None = None) -> str | None:
    """The OPeRA click type of a grounded click: the page's word first; page-free, the brain's own (in its
    decision's details), else the name's."""
    if action.type != "click":
        return None
    candidate = observation.by_name.get(action.name)
    if candidate is not None:
        return candidate.click_type
    return (details or {}).get("click_type") or infer_click_type(action.name)
