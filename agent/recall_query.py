"""What to ask memory: the page in view and the recent history, in words."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from agent.history import Step
from agent.page.observation import Observation
from agent.tasks import Task


def search_term_from_url(url: str | None) -> str | None:
    if not url:
        return None
    query = parse_qs(urlparse(url).query)
    for key in ("k", "q", "field-keywords", "query", "search"):
        if query.get(key):
            return query[key][0]
    return None


def recall_query(observation: Observation, history: list[Step], task: Task | None = None) -> str:
    """A short text: what the person came to do (when given a task), is looking at and has just done; memory is
    recalled against it."""
    parts: list[str] = [f"trying to {task.goal[:300]}"] if task is not None else []
    term = search_term_from_url(observation.url)
    typed = [s.action.text for s in history if s.action.type == "input" and s.action.text]
    if typed:
        parts.append(f"searching for {typed[-1]}")
    elif term:
        parts.append(f"searching for {term}")
    if observation.title:
        parts.append(observation.title[:160])
    if observation.page_type not in ("none", "other"):
        parts.append(f"on a {observation.page_type.replace('_', ' ')} page")
    for step in history[-3:]:
        if step.action.type == "click":
            parts.append(step.action.name.rsplit(".", 1)[-1].replace("_", " "))
        if step.rationale:
            parts.append(step.rationale[:200])
    if not parts:
        parts.append("how I shop online and what matters to me when I buy")
    return "; ".join(parts)
