"""One decision of a twin as it was made: the page, the action, the rationale, the memories and the drivers.

Recorded where the decision is made (the experiment runner, a live twin session) because only there are the
page, the recalled memories and the brain's evidence all at hand; the export (decision_table.py) later adds
who the person is and which run it was. The page's HTML travels with a live decision only (`page_html`, never
serialised): an experiment's pages are known before the run and are stored from there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from agent.actions import Action
from agent.behaviour.driver_words import driver_words
from agent.history import Step
from personas.memory_types import Memory
from personas.persona import Persona


def page_bytes(html: str) -> bytes:
    """The bytes a page is stored and hashed as."""
    return html.encode("utf-8", "replace")


def page_sha256(html: str) -> str:
    """The content hash naming a stored page (pages/<sha256>.html)."""
    return hashlib.sha256(page_bytes(html)).hexdigest()


class MemoryRef(BaseModel):
    id: str | None = Field(None, description="The memory's id in the persona's store (None in traces from before ids).")
    kind: str
    text: str
    score: float | None = None

    @classmethod
    def of(cls, memory: Memory) -> MemoryRef:
        # a Memory is validated already; five per decision in bulk runs: no second validation
        return cls.model_construct(id=memory.id, kind=memory.kind, text=memory.text, score=memory.score)


class DriverReason(BaseModel):
    driver: str = Field(
        ..., description="History feature (prev1=review), persona feature (pref:impulsiveness) or page:<fact>."
    )
    kind: Literal["history", "persona", "page"]
    phrase: str = Field(..., description="The driver in the twin's words, as its rationale words it.")


class DecisionEvidence(BaseModel):
    """What the embedded brain says moved a decision; other brains give none (unless they fell back to it)."""

    label: str = Field(..., description="The label chosen: an OPeRA click type, input or terminate.")
    probability: float | None = Field(None, description="Its probability under the distribution the twin drew from.")
    probabilities: dict[str, float] = Field(
        default_factory=dict, description="Label -> probability after the page terms."
    )
    drivers: list[str] = Field(default_factory=list, description="History features that pushed the label up most.")
    persona_drivers: list[str] = Field(default_factory=list, description="Persona features that did.")
    page_drivers: list[dict] = Field(
        default_factory=list,
        description="Page facts weighed: kind, shift (log-odds of buying), value, reference, trait.",
    )
    reasons: list[DriverReason] = Field(
        default_factory=list, description="Each driver in words (agent/behaviour/driver_words.py)."
    )


def evidence_of(
    details: dict, persona: Persona | None, history: Sequence[Step], page_title: str
) -> DecisionEvidence | None:
    """The evidence in a decision's details, with each driver in words; None when the brain gave no drivers."""
    label = details.get("label")
    if label is None:
        return None
    reasons = [
        DriverReason.model_construct(driver=w.driver, kind=w.kind, phrase=w.phrase)  # typed already
        for w in driver_words(details, persona, history, page_title)
    ]
    return DecisionEvidence(
        label=label,
        probability=details.get("probability"),
        probabilities=details.get("probabilities") or {},
        drivers=list(details.get("drivers") or []),
        persona_drivers=list(details.get("persona_drivers") or []),
        page_drivers=list(details.get("page_drivers") or []),
        reasons=reasons,
    )


class DecisionRecord(BaseModel):
    """One step of one twin's run."""

    step: int = Field(..., ge=1, description="1-based, within this twin's run.")
    url: str | None = None
    page_sha256: str | None = Field(None, description="Names the stored page: pages/<sha256>.html.")
    page_type: str | None = None
    page_title: str | None = None
    action: Action
    click_type: str | None = None
    rationale: str = ""
    memories: list[MemoryRef] = Field(default_factory=list)
    evidence: DecisionEvidence | None = None
    brain: str
    model: str | None = None
    fallback_used: bool = False
    fallback_reason: str | None = None
    seed: int | None = None
    page_html: str | None = Field(
        None,
        exclude=True,
        repr=False,
        description="The page as the twin read it, carried only until the export stores it.",
    )
