"""Every driver of one embedded-brain decision in the twin's words, one phrase per driver.

The rationale cites two or three of them (rationale.py); an export row and an interview want each driver on
its own, worded exactly as the rationale words it: the history features that pushed the label (with the
session's real counts), the persona answers that did (never one that says the opposite of the action), and
the page facts the twin weighed, for buying or against it (page_reasons.fact_phrase, with the rationale's own
choice of phrasing). Everything is read back from the decision's `details`, so any decision of the embedded
brain can be explained after the fact; other brains give no drivers, hence no words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agent.behaviour.history_view import view_history
from agent.behaviour.page_reasons import CITE_THRESHOLD, fact_phrase
from agent.behaviour.page_terms import Driver
from agent.behaviour.persona_features import persona_vector
from agent.behaviour.rationale import driver_phrase, persona_phrase, session_facts
from agent.history import Step
from personas.persona import Persona

DriverKind = Literal["history", "persona", "page"]


@dataclass(frozen=True)
class DriverWords:
    driver: (
        str  # the driver's name: a history feature ("prev1=review"), a persona one ("pref:impulsiveness"), page:<kind>
    )
    kind: DriverKind
    phrase: str  # the first-person words the rationale uses for it


def page_driver(data: dict) -> Driver:
    """A page driver as Decision.details holds it (JSON: an infinite shift is None) back as a Driver."""
    shift = data.get("shift")
    return Driver(
        kind=data["kind"],
        shift=float(shift) if shift is not None else -math.inf,
        value=data.get("value"),
        reference=data.get("reference"),
        trait=data.get("trait"),
        currency=data.get("currency"),
        note=data.get("note"),
    )


def driver_words(details: dict, persona: Persona | None, history: Sequence[Step], page_title: str) -> list[DriverWords]:
    """The drivers of a decision (its `details`, as the embedded brain gives them) in words: history features,
    then persona answers, then page facts that moved it by at least page_reasons.CITE_THRESHOLD."""
    label = details.get("label")
    if label is None:  # not the embedded brain: no drivers to speak of
        return []
    past = view_history(list(history))
    words: list[DriverWords] = []
    seen: set[str] = set()

    def add(driver: str, kind: DriverKind, phrase: str | None) -> None:
        if phrase and phrase not in seen:
            seen.add(phrase)
            words.append(DriverWords(driver, kind, phrase))

    facts = session_facts(past)
    for name in details.get("drivers") or []:
        add(name, "history", driver_phrase(name, past, facts))
    values = persona_vector(persona)
    for name in details.get("persona_drivers") or []:
        add(name, "persona", persona_phrase(name, values.get(name, 0.0), label))
    salt = f"{persona.id if persona is not None else ''}|{page_title}|{len(past)}"  # as the engine words them
    for data in details.get("page_drivers") or []:
        driver = page_driver(data)
        if math.isfinite(driver.shift) and abs(driver.shift) < CITE_THRESHOLD:
            continue
        add(f"page:{driver.kind}", "page", fact_phrase(driver, driver.shift > 0, salt))
    return words
