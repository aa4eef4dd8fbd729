"""The decision export's columns: one flat row per twin decision, the same in decisions.jsonl and decisions.parquet.

A row joins a DecisionRecord (what the twin did on one page, and why) with who the twin is (the persona card,
personas/persona_card.py, flattened; the survey's 1-5 answers) and where it was (run, variant, instance). The
columns are fixed, listed here with what each means, and documented in docs/experiments.md; a change to them
is a new FORMAT_VERSION, written in every row, so a reader can tell which shape it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from agent.behaviour.labels import LABELS
from agent.exports.decision_record import DecisionRecord
from personas.persona import (
    BIG_FIVE_TRAITS,
    PREFERENCE_CONSTRUCTS,
    Demographics,
    Persona,
    ShoppingHabits,
)
from personas.persona_card import card_traits, own_words, persona_card

FORMAT_VERSION = 1

_TEXTS = pa.list_(pa.string())
_PAGE_DRIVER = pa.struct(
    [
        ("kind", pa.string()),
        ("shift", pa.float64()),
        ("value", pa.float64()),
        ("reference", pa.float64()),
        ("trait", pa.string()),
    ]
)
_REASON = pa.struct([("driver", pa.string()), ("kind", pa.string()), ("phrase", pa.string())])


@dataclass(frozen=True)
class Column:
    name: str
    type: pa.DataType
    description: str


def _persona_columns() -> list[Column]:
    columns = [
        Column(f"persona_{name}", pa.string(), "demographics, as answered") for name in Demographics.model_fields
    ]
    columns += [
        Column(f"persona_{name}", pa.bool_() if name == "prime" else pa.string(), "shopping habits, as answered")
        for name in ShoppingHabits.model_fields
    ]
    columns += [Column(f"big5_{trait}", pa.float64(), "Big Five trait on a 0..1 scale") for trait in BIG_FIVE_TRAITS]
    columns += [
        Column(f"pref_{construct}", pa.int64(), "agreement 1..5 with the OPeRA shopping statement")
        for construct in PREFERENCE_CONSTRUCTS
    ]
    return columns


COLUMNS: tuple[Column, ...] = (
    Column("format_version", pa.int64(), f"the export format of this row ({FORMAT_VERSION})"),
    Column("decision_id", pa.string(), "variant/persona/instance/step in an experiment, persona/step in a simulation"),
    Column("run_id", pa.string(), "the experiment id (API), the run directory's name (CLI), the simulation id"),
    Column("run_kind", pa.string(), "experiment or simulation"),
    Column("persona_id", pa.string(), "the persona"),
    Column("persona_name", pa.string(), "display name, when given"),
    *_persona_columns(),
    Column("agrees_with", pa.string(), "the shopping statements agreed with (4-5), ' | '-separated"),
    Column("disagrees_with", pa.string(), "the statements disagreed with (1-2)"),
    Column("persona_own_words", pa.string(), "the first sentence the person wrote or said about themselves, verbatim"),
    Column("variant", pa.string(), "the experiment variant (empty in a simulation)"),
    Column("instance", pa.int64(), "the twin instance, 0..k-1 (empty in a simulation)"),
    Column("step", pa.int64(), "1-based step of this twin's run"),
    Column("last_step", pa.bool_(), "the run's last decision (it bought, left, or the pages or steps ran out)"),
    Column("page_url", pa.string(), "the page's address"),
    Column("page_sha256", pa.string(), "SHA-256 of the page as the twin read it: pages/<page_sha256>.html"),
    Column("page_type", pa.string(), "search_results, product, cart, checkout, home, other"),
    Column("page_title", pa.string(), "the page's title"),
    Column("action_type", pa.string(), "click, input or terminate"),
    Column("element", pa.string(), "the name= of the element clicked or typed into"),
    Column("text", pa.string(), "what was typed (input)"),
    Column("click_type", pa.string(), "OPeRA click type of a click"),
    Column("rationale", pa.string(), "the twin's first-person reason, as given"),
    Column("memory_ids", _TEXTS, "the recalled memories the decision was given: ids in the persona's store"),
    Column("memory_kinds", _TEXTS, "their kinds (profile, preference, personality, interview, transcript, event)"),
    Column("memory_texts", _TEXTS, "their texts (live simulations keep the first 400 characters)"),
    Column("label", pa.string(), "embedded brain: the label chosen (click type, input or terminate)"),
    Column("probability", pa.float64(), "embedded brain: its probability"),
    *(Column(f"p_{label}", pa.float64(), "embedded brain: probability of this label") for label in LABELS),
    Column("drivers", _TEXTS, "embedded brain: history features that pushed the label up most"),
    Column("persona_drivers", _TEXTS, "embedded brain: persona features that did"),
    Column(
        "page_drivers",
        pa.list_(_PAGE_DRIVER),
        "embedded brain: page facts weighed (kind, shift in log-odds of buying, value, reference, trait)",
    ),
    Column("reasons", pa.list_(_REASON), "embedded brain: each driver in the twin's words (driver, kind, phrase)"),
    Column("brain", pa.string(), "the brain whose decision it is (after any fallback)"),
    Column("model", pa.string(), "the model (behaviour-model, or the LLM)"),
    Column("fallback_used", pa.bool_(), "the requested brain failed and the embedded brain decided"),
    Column("fallback_reason", pa.string(), "why"),
    Column("seed", pa.int64(), "the decision's sampling seed"),
)
COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)
SCHEMA = pa.schema(
    [pa.field(c.name, c.type) for c in COLUMNS],
    metadata={"twinsim_export": "decisions", "format_version": str(FORMAT_VERSION)},
)


def decision_id(persona_id: str, step: int, variant: str | None = None, instance: int | None = None) -> str:
    return f"{persona_id}/{step}" if variant is None else f"{variant}/{persona_id}/{instance}/{step}"


def persona_columns(persona: Persona | None, persona_id: str) -> dict[str, object]:
    """Who the twin is, as columns: the persona card flattened, and the survey answers."""
    row: dict[str, object] = {c.name: None for c in _persona_columns()}
    row.update(persona_id=persona_id, persona_name=None, agrees_with=None, disagrees_with=None, persona_own_words=None)
    if persona is None:
        return row
    card = persona_card(persona)
    row.update({k: v for k, v in card_traits(card).items() if k in row})
    row.update({f"pref_{c}": persona.preferences.get(c) for c in PREFERENCE_CONSTRUCTS})
    row.update(persona_name=persona.name, persona_own_words=own_words(persona))
    return row


def decision_row(
    record: DecisionRecord,
    *,
    run_id: str,
    run_kind: str,
    person: dict[str, object],
    variant: str | None,
    instance: int | None,
    last_step: bool,
) -> dict[str, object]:
    """One row: the run, the person (`persona_columns`), the page, the action, the memories, the evidence."""
    evidence = record.evidence
    probabilities = evidence.probabilities if evidence is not None else {}
    row: dict[str, object] = {
        "format_version": FORMAT_VERSION,
        "decision_id": decision_id(str(person["persona_id"]), record.step, variant, instance),
        "run_id": run_id,
        "run_kind": run_kind,
        **person,
        "variant": variant,
        "instance": instance,
        "step": record.step,
        "last_step": last_step,
        "page_url": record.url,
        "page_sha256": record.page_sha256,
        "page_type": record.page_type,
        "page_title": record.page_title,
        "action_type": record.action.type,
        "element": getattr(record.action, "name", None),
        "text": getattr(record.action, "text", None),
        "click_type": record.click_type,
        "rationale": record.rationale,
        "memory_ids": [m.id for m in record.memories],
        "memory_kinds": [m.kind for m in record.memories],
        "memory_texts": [m.text for m in record.memories],
        "label": evidence.label if evidence else None,
        "probability": evidence.probability if evidence else None,
        **{f"p_{label}": probabilities.get(label) for label in LABELS},
        "drivers": evidence.drivers if evidence else [],
        "persona_drivers": evidence.persona_drivers if evidence else [],
        "page_drivers": [
            {k: d.get(k) for k in ("kind", "shift", "value", "reference", "trait")}
            for d in (evidence.page_drivers if evidence else [])
        ],
        "reasons": [r.model_dump() for r in evidence.reasons] if evidence else [],
        "brain": record.brain,
        "model": record.model,
        "fallback_used": record.fallback_used,
        "fallback_reason": record.fallback_reason,
        "seed": record.seed,
    }
    return row


def to_table(rows: list[dict]) -> pa.Table:
    """The rows as an Arrow table of the documented schema (a missing column is null)."""
    return pa.Table.from_pylist([{name: row.get(name) for name in COLUMN_NAMES} for row in rows], schema=SCHEMA)
