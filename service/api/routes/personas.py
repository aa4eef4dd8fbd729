"""Personas and their memories: import, read, delete, remember, recall; interview a persona's twin."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, Query, Response, status
from pydantic import ValidationError

from agent.exports.decision_lookup import DecisionNotFound
from agent.exports.run_export import ExportFormatError, ExportMissing
from agent.interview import RECALL_K, InterviewAnswer, decision_in_run, interview
from personas.memory_store import PersonaNotFound
from personas.memory_types import Memory
from personas.persona import PERSONA_ID_PATTERN, PersonaId
from personas.sources import PersonaSourceError, persona_from_record, record_kind
from service.api.dependencies import ExperimentJobsDep, ServicesDep, SimulationJobsDep
from service.api.errors import validation_detail
from service.api.paging import limit_query, offset_query
from service.api.schemas import NOT_FOUND, InterviewRequest, MemoryIn, PersonaCreated, PersonaListItem, error
from service.jobs.experiment_store import ExperimentNotFound

router = APIRouter(prefix="/personas", tags=["personas"])

_NATIVE_EXAMPLE = {
    "id": "maria-lopez",
    "name": "Maria",
    "demographics": {"gender": "Female", "age": "35-44 years old", "city": "Austin"},
    "shopping": {"frequency": "Once a week", "monthly_spend": "150", "prime": True},
    "preferences": {"review_engagement": 5, "price_consciousness": 4, "impulsiveness": 2},
    "big_five": {"levels": {"conscientiousness": "High", "extraversion": "Medium"}},
    "self_description": "I am a nurse and a mother of two. I buy most household things online.",
}


# What every record needs, in the schema as the service checks it: a native persona names its id; an OPeRA user-table
# row (it has survey or raw_survey) or personas.jsonl record (big_five_levels, agrees_with or disagrees_with) its
# user_id (personas/sources/__init__.py record_kind).
_OPERA_KEYS = ("survey", "raw_survey", "big_five_levels", "agrees_with", "disagrees_with")
PERSONA_RECORD_SHAPES = {
    # The keys that decide a record's shape, named at the top as well as in the branches: a client (or a fuzzer
    # that learns from a refusal that a native persona takes no unknown keys) still sees `id` and `user_id`.
    "properties": {
        "id": {"description": "A native persona's id (the shape of its value: the first branch below)."},
        "user_id": {"description": "An OPeRA record's user id."},
        **{key: {"description": "An OPeRA field: the record is read as OPeRA data."} for key in _OPERA_KEYS},
    },
    "anyOf": [
        {
            "required": ["id"],
            "properties": {"id": {"type": "string", "pattern": PERSONA_ID_PATTERN, "minLength": 1, "maxLength": 128}},
        },
        {
            "required": ["user_id"],
            "properties": {"user_id": {"type": "string", "minLength": 1}},
            "anyOf": [{"required": [key]} for key in _OPERA_KEYS],
        },
    ],
}


@router.post("", response_model=PersonaCreated, status_code=status.HTTP_201_CREATED)
async def import_persona(
    services: ServicesDep,
    record: Annotated[
        dict,
        Body(
            openapi_examples={"native": {"summary": "A hand-written persona", "value": _NATIVE_EXAMPLE}},
            json_schema_extra=PERSONA_RECORD_SHAPES,
        ),
    ],
) -> PersonaCreated:
    """A native persona, an OPeRA user-table row, or an OPeRA personas.jsonl record. Same id: replaced whole."""
    user_id = record.get("user_id")
    if record_kind(record) != "native" and not (isinstance(user_id, str) and user_id):
        # as the schema says: the file readers take a number or a boolean as text, a JSON body names its id as text
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, "an OPeRA record's user_id must be a non-empty string"
        )
    try:
        persona = persona_from_record(record)
    except ValidationError as error:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, validation_detail(error)) from error
    except (PersonaSourceError, ValueError) as error:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(error)) from error
    replaced = await asyncio.to_thread(services.store.has_persona, persona.id)
    try:
        count = await asyncio.to_thread(services.store.put_persona, persona)
    except ValueError as error:  # an id this tenant may not use (service/tenant_store.py)
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(error)) from None
    return PersonaCreated(id=persona.id, memories=count, replaced=replaced)


@router.get("", response_model=list[PersonaListItem])
async def list_personas(
    services: ServicesDep, limit: int = limit_query(1000, 10_000), offset: int = offset_query()
) -> list[PersonaListItem]:
    summaries = await asyncio.to_thread(services.store.list_personas, limit, offset)
    return [PersonaListItem(**vars(s)) for s in summaries]


def _not_found(persona_id: str) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, f"persona '{persona_id}' not found")


@router.get("/{persona_id}", responses=NOT_FOUND)
async def get_persona(persona_id: PersonaId, services: ServicesDep) -> dict:
    try:
        persona = await asyncio.to_thread(services.store.get_persona, persona_id)
    except PersonaNotFound:
        raise _not_found(persona_id) from None
    return persona.model_dump(mode="json")


@router.delete("/{persona_id}", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND)
async def delete_persona(persona_id: PersonaId, services: ServicesDep) -> Response:
    try:
        await asyncio.to_thread(services.store.delete_persona, persona_id)
    except PersonaNotFound:
        raise _not_found(persona_id) from None
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{persona_id}/memories", response_model=Memory, status_code=status.HTTP_201_CREATED, responses=NOT_FOUND)
async def add_memory(persona_id: PersonaId, memory: MemoryIn, services: ServicesDep) -> Memory:
    try:
        return await asyncio.to_thread(services.store.add_memory, persona_id, memory.text, memory.kind)
    except PersonaNotFound:
        raise _not_found(persona_id) from None


@router.get("/{persona_id}/memories", response_model=list[Memory], responses=NOT_FOUND)
async def memories(
    persona_id: PersonaId,
    services: ServicesDep,
    q: str | None = Query(None, max_length=4000, description="Recall by meaning; without q, list in stored order."),
    k: int = Query(5, ge=1, le=200),
) -> list[Memory]:
    try:
        if q:
            return await asyncio.to_thread(services.store.recall, persona_id, q, k)
        return await asyncio.to_thread(services.store.list_memories, persona_id, None, k)
    except PersonaNotFound:
        raise _not_found(persona_id) from None


def _run_dir(run: str, experiments, simulations) -> Path:
    """Where a run's decision export is: an experiment of the job store, or a simulation of this process."""
    try:
        experiments.store.get(run)
        return experiments.export_dir(run)
    except ExperimentNotFound:
        pass
    job = simulations.get(run)
    if job is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"run '{run}' not found (an experiment or simulation id)")
    return job.out_dir


@router.post(
    "/{persona_id}/interview",
    response_model=InterviewAnswer,
    responses=NOT_FOUND | {409: error("The run's decision export is of another format.")},
)
async def interview_persona(
    persona_id: PersonaId,
    body: InterviewRequest,
    services: ServicesDep,
    experiments: ExperimentJobsDep,
    simulations: SimulationJobsDep,
) -> InterviewAnswer:
    """Ask the persona's twin a question, optionally about a decision of a run (docs/interviews.md): offline, an
    answer assembled from that decision's drivers and the person's own recalled words; with brain=llm, the
    model's answer from the same (and the decision's page), falling back to the offline one if it fails."""
    store = services.store
    try:
        persona = await asyncio.to_thread(store.get_persona, persona_id)
    except PersonaNotFound:
        raise _not_found(persona_id) from None
    decision, page_html = None, None
    if body.run is not None:
        directory = await asyncio.to_thread(_run_dir, body.run, experiments, simulations)
        sample = body.sample
        try:
            decision, page_html = await asyncio.to_thread(
                decision_in_run,
                directory,
                persona_id,
                body.question,
                store.embedder.embed,
                decision_id=body.decision,
                variant=sample.variant if sample else None,
                instance=sample.instance if sample else None,
                step=sample.step if sample else None,
            )
        except ExportMissing:
            raise HTTPException(
                status.HTTP_404_NOT_FOUND,
                f"run '{body.run}' has no decisions to ask about yet (it "
                "ran before decisions were exported, or no twin has finished)",
            ) from None
        except DecisionNotFound as missing:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"run '{body.run}': {missing}") from None
        except ExportFormatError as unreadable:
            raise HTTPException(
                status.HTTP_409_CONFLICT, str(unreadable).replace(str(directory), f"run '{body.run}'")
            ) from None
    memories = await asyncio.to_thread(store.recall, persona_id, body.question, RECALL_K)
    return await interview(
        body.question,
        persona,
        memories,
        decision=decision,
        page_html=page_html,
        brain=body.brain,
        llm=services.llm,
        model=body.model or services.settings.llm_model,
        embed=store.embedder.embed,
    )
