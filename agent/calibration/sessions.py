"""Sessions in the benchmark's action space: what the behaviour model learns from and is measured on.

Every source (the OPeRA timelines, the full OPeRA action table) is turned into this one shape, so the
features, the fitting and the fidelity benchmark never care where a session came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from agent.behaviour.labels import PURCHASE, TERMINATE


@dataclass(frozen=True, slots=True)
class BehaviourStep:
    """One benchmark action (a click, an input or the closing terminate) and what is known around it."""

    label: str  # a click type, "input" or "terminate" (see labels.LABELS)
    timestamp: float | None = None  # epoch seconds, when known
    name: str | None = None  # the semantic id acted on, when known (full OPeRA release)
    text: str | None = None  # the typed text of an input, when known
    url: str | None = None  # the page the action happened on, when known
    page_type: str | None = None  # search_results / product / cart / ..., when known
    # Raw events between the previous benchmark action and this one (None when the source does not say).
    scrolls_before: int | None = None
    navigations_before: int | None = None
    tabs_before: int | None = None
    rationale: str | None = None


@dataclass(frozen=True, slots=True)
class BehaviourSession:
    """A session as the benchmark sees it: it always ends in a purchase click or a terminate."""

    session_id: str
    user_prefix: str  # the first 8 characters of the OPeRA user id
    steps: tuple[BehaviourStep, ...]
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def outcome(self) -> str:
        return PURCHASE if self.steps and self.steps[-1].label == PURCHASE else TERMINATE

    @property
    def labels(self) -> list[str]:
        return [step.label for step in self.steps]

    def without_times(self) -> BehaviourSession:
        """The session as the live simulator and most API callers describe it: actions without times."""
        return replace(self, steps=tuple(replace(step, timestamp=None) for step in self.steps))


def close_session(
    steps: list[BehaviourStep],
    end_time: float | None = None,
    trailing: tuple[int, int, int] | None = None,
) -> list[BehaviourStep]:
    """OPeRA's rule: a session that does not end in a purchase click ends in a terminate.

    The terminate happens at the session's end (`end_time`, else the last action's time), after the
    raw events that followed the last action (`trailing` = scrolls, navigations, tab switches).
    """
    if steps and steps[-1].label == PURCHASE:
        return steps
    last_time = steps[-1].timestamp if steps else None
    when = end_time if end_time is not None and (last_time is None or end_time >= last_time) else last_time
    scrolls, navigations, tabs = trailing if trailing is not None else (None, None, None)
    return [
        *steps,
        BehaviourStep(
            label=TERMINATE, timestamp=when, scrolls_before=scrolls, navigations_before=navigations, tabs_before=tabs
        ),
    ]
