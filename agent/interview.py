"""Interviewing a twin: ask the person's twin a question, about one decision of a finished run or not.

Two ways to answer, as for predictions:

- offline (the embedded brain, the default): the answer is assembled, never written. Each sentence is either one
  of that decision's drivers in the twin's words (agent/behaviour/driver_words.py: the words its rationale uses),
  chosen by closeness in meaning to the question, or a verbatim quote of a memory the question recalls from the
  person's store. A decision of a brain that gives no drivers (an LLM) is explained by its rationale, quoted as
  given. Nothing else is said, so every sentence can be traced to the record or to the person's own words.
- with an LLM (litellm, agent/llm/client.py): the model answers in the first person from the person's profile,
  the recalled memories, and the decision's page (its stored HTML, cut to a budget), action, rationale and
  drivers (agent/llm/interview_prompts.py). A failing or silent provider falls back to the offline answer and
  says so (`fallback_used`, `fallback_reason`), as /predict does.

Either way the answer lists the memories it drew on (ids, kinds, texts) and the drivers.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from agent.actions import parse_action
from agent.behaviour.rationale import memory_words
from agent.exports.decision_lookup import find_decision
from agent.exports.decision_record import DriverReason
from agent.exports.run_export import read_rows, stored_page_html
from agent.llm.client import LLMCallError, LLMClient
from agent.llm.interview_prompts import decision_block, interview_messages
from agent.llm.prompts import action_text
from agent.usage import Usage
from personas.memory_types import Memory
from personas.persona import Persona

MAX_QUESTION_CHARS = 2_000
RECALL_K = 5  # memories the question recalls
MAX_DRIVERS = 2  # drivers an offline answer gives
MAX_QUOTES = 2  # memories it quotes
MIN_QUOTE_WORDS = 4  # a shorter memory ("Narrow.") says nothing on its own
MAX_QUOTE_CHARS = 300
MAX_ANSWER_CHARS = 4_000
NO_MEMORIES_ANSWER = "I have no memories stored to answer from, only my profile."
Embed = Callable[[list[str]], np.ndarray]
InterviewBrain = Literal["embedded", "llm"]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class DecisionAsked(BaseModel):
    """The decision an interview is about, as its export row has it (agent/exports/decision_table.py)."""

    decision_id: str
    run_id: str | None = None
    run_kind: str | None = None
    variant: str | None = None
    instance: int | None = None
    step: int
    page_url: str | None = None
    page_sha256: str | None = None
    page_title: str | None = None
    action: dict = Field(..., description="type, and name (and text) for a click or an input")
    click_type: str | None = None
    rationale: str = ""
    brain: str | None = None
    memory_ids: list[str | None] = Field(default_factory=list, description="The memories the decision was given.")
    reasons: list[DriverReason] = Field(default_factory=list, description="Its drivers in words.")

    @classmethod
    def from_row(cls, row: dict) -> DecisionAsked:
        action = {"type": row["action_type"]}
        if row.get("element") is not None:
            action["name"] = row["element"]
        if row.get("text") is not None:
            action["text"] = row["text"]
        return cls(
            decision_id=row["decision_id"],
            run_id=row.get("run_id"),
            run_kind=row.get("run_kind"),
            variant=row.get("variant"),
            instance=row.get("instance"),
            step=row["step"],
            page_url=row.get("page_url"),
            page_sha256=row.get("page_sha256"),
            page_title=row.get("page_title"),
            action=action,
            click_type=row.get("click_type"),
            rationale=row.get("rationale") or "",
            brain=row.get("brain"),
            memory_ids=list(row.get("memory_ids") or []),
            reasons=[DriverReason(**r) for r in row.get("reasons") or []],
        )

    def where(self) -> str:
        parts = [
            f"run {self.run_id}" if self.run_id else None,
            f"variant {self.variant}" if self.variant else None,
            f"instance {self.instance}" if self.variant is not None and self.instance is not None else None,
            f"step {self.step}",
            f"page {self.page_url}" if self.page_url else None,
        ]
        return ", ".join(p for p in parts if p)


class AnswerSentence(BaseModel):
    text: str = Field(..., description="As it stands in the answer.")
    source: Literal["driver", "memory", "rationale", "no_memories"]
    driver: str | None = Field(None, description="For a driver: its name (decision export `reasons`).")
    memory_id: str | None = Field(None, description="For a quote: the memory quoted.")


class InterviewMemory(BaseModel):
    id: str
    kind: str
    text: str
    score: float | None = None


class InterviewAnswer(BaseModel):
    persona_id: str
    question: str
    answer: str
    sentences: list[AnswerSentence] = Field(
        default_factory=list,
        description="Offline: every sentence and where it "
        "comes from. Empty for an LLM's answer, which is its own text.",
    )
    memories: list[InterviewMemory] = Field(default_factory=list, description="The memories the answer drew on.")
    drivers: list[DriverReason] = Field(default_factory=list, description="The decision's drivers the answer drew on.")
    decision: DecisionAsked | None = None
    brain: str
    requested_brain: str
    model: str | None = None
    fallback_used: bool = False
    fallback_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)


def _capitalised(phrase: str) -> str:
    phrase = phrase.strip()
    text = phrase[:1].upper() + phrase[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def quote(memory: Memory) -> str | None:
    """A verbatim piece of what the person said: whole sentences of it, up to MAX_QUOTE_CHARS (a first sentence
    longer than that is cut at a word and ends in …); None when it is too short to say anything."""
    words = memory_words(memory)
    if len(words.split()) < MIN_QUOTE_WORDS:
        return None
    kept = ""
    for sentence in _SENTENCE_END.split(words):
        candidate = f"{kept} {sentence}" if kept else sentence
        if len(candidate) > MAX_QUOTE_CHARS:
            break
        kept = candidate
    if not kept:
        kept = words[:MAX_QUOTE_CHARS].rsplit(" ", 1)[0] + "…"
    return kept


def closest(question: str, texts: Sequence[str], embed: Embed | None, n: int) -> list[int]:
    """Indexes of the n texts closest in meaning to the question (in the given order without an embedder)."""
    if len(texts) <= n or embed is None:
        return list(range(min(n, len(texts))))
    vectors = np.asarray(embed([question, *texts]), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1) + 1e-9
    scores = (vectors[1:] @ vectors[0]) / (norms[1:] * norms[0])
    return sorted(np.argsort(-scores, kind="stable")[:n].tolist())


def offline_answer(
    question: str,
    persona_id: str,
    memories: Sequence[Memory],
    decision: DecisionAsked | None,
    embed: Embed | None,
    *,
    requested_brain: str = "embedded",
    fallback_reason: str | None = None,
    usage: Usage | None = None,
) -> InterviewAnswer:
    """The assembled answer: the decision's drivers closest to the question, then quotes of recalled memories."""
    sentences: list[AnswerSentence] = []
    drivers: list[DriverReason] = []
    if decision is not None and decision.reasons:
        chosen = closest(question, [r.phrase for r in decision.reasons], embed, MAX_DRIVERS)
        drivers = [decision.reasons[i] for i in chosen]
        sentences += [AnswerSentence(text=_capitalised(r.phrase), source="driver", driver=r.driver) for r in drivers]
    elif decision is not None and decision.rationale:
        sentences.append(AnswerSentence(text=decision.rationale.strip(), source="rationale"))
    used: list[InterviewMemory] = []
    for memory in memories:
        if len(used) == MAX_QUOTES:
            break
        words = quote(memory)
        if words is None:
            continue
        used.append(InterviewMemory(id=memory.id, kind=memory.kind, text=memory.text, score=memory.score))
        sentences.append(AnswerSentence(text=f"\u201c{words}\u201d", source="memory", memory_id=memory.id))
    if not memories:  # a person stored with no memories says so rather than answer nothing
        sentences.append(AnswerSentence(text=NO_MEMORIES_ANSWER, source="no_memories"))
    return InterviewAnswer(
        persona_id=persona_id,
        question=question,
        answer=" ".join(s.text for s in sentences),
        sentences=sentences,
        memories=used,
        drivers=drivers,
        decision=decision,
        brain="embedded",
        requested_brain=requested_brain,
        model=None,
        fallback_used=fallback_reason is not None,
        fallback_reason=fallback_reason,
        usage=usage or Usage(),
    )


async def interview(
    question: str,
    persona: Persona,
    memories: Sequence[Memory],
    *,
    decision: DecisionAsked | None = None,
    page_html: str | None = None,
    brain: InterviewBrain = "embedded",
    llm: LLMClient | None = None,
    model: str | None = None,
    embed: Embed | None = None,
) -> InterviewAnswer:
    """Answer as the person. `memories`: recalled from the person's store with the question as the query."""
    if brain == "llm":
        reason, usage = None, Usage()
        if llm is None or not model:
            reason = "no model configured for the llm brain (set TWINSIM_LLM_MODEL or pass a model)"
        else:
            messages = _messages(question, persona, memories, decision, page_html)
            try:
                completion = await llm.complete(model, messages, temperature=0.0)
            except LLMCallError as error:
                reason = f"llm brain failed: {model}: {error.reason}"
            else:
                usage = completion.usage
                text = completion.text.strip()
                if text:
                    return InterviewAnswer(
                        persona_id=persona.id,
                        question=question,
                        answer=text[:MAX_ANSWER_CHARS],
                        memories=[InterviewMemory(id=m.id, kind=m.kind, text=m.text, score=m.score) for m in memories],
                        drivers=decision.reasons if decision is not None else [],
                        decision=decision,
                        brain="llm",
                        requested_brain="llm",
                        model=model,
                        usage=usage,
                    )
                reason = f"llm brain failed: {model} gave an empty answer"
        return await asyncio.to_thread(
            offline_answer,
            question,
            persona.id,
            memories,
            decision,
            embed,
            requested_brain="llm",
            fallback_reason=reason,
            usage=usage,
        )
    return await asyncio.to_thread(offline_answer, question, persona.id, memories, decision, embed)


def _messages(
    question: str, persona: Persona, memories: Sequence[Memory], decision: DecisionAsked | None, page_html: str | None
) -> list[dict]:
    block = None
    if decision is not None:
        block = decision_block(
            action_text(parse_action(decision.action)),
            decision.click_type,
            decision.rationale,
            [r.phrase for r in decision.reasons],
            decision.where(),
        )
    return interview_messages(
        question,
        persona,
        memories,
        decision=block,
        page_html=page_html,
        page_url=decision.page_url if decision is not None else None,
    )


def decision_in_run(
    directory: Path,
    persona_id: str,
    question: str | None = None,
    embed: Embed | None = None,
    *,
    decision_id: str | None = None,
    variant: str | None = None,
    instance: int | None = None,
    step: int | None = None,
) -> tuple[DecisionAsked, str | None]:
    """The decision asked about, from a run's export (agent/exports/decision_lookup.py says which one a partial
    reference means), and its page's stored HTML. Raises ExportMissing, ExportFormatError or DecisionNotFound."""
    row = find_decision(
        read_rows(directory, persona_id),
        persona_id,
        decision_id=decision_id,
        variant=variant,
        instance=instance,
        step=step,
        question=question,
        embed=embed,
    )
    html = stored_page_html(directory, row["page_sha256"]) if row.get("page_sha256") else None
    return DecisionAsked.from_row(row), html
