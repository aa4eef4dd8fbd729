"""Personas and their memories: import, read, delete, remember, recall."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Body, HTTPException, Query, Response, status
from pydantic import ValidationError

from personas.memory_store import PersonaNotFound
from personas.memory_types import Memory
from personas.persona import PersonaId
from personas.sources import PersonaSourceError, persona_from_record
from service.api.dependencies import ServicesDep
from service.api.errors import validation_detail
from service.api.paging import limit_query, offset_query
from service.api.schemas import NOT_FOUND, MemoryIn, PersonaCreated, PersonaListItem

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


@router.post("", response_model=PersonaCreated, status_code=status.HTTP_201_CREATED)
async def import_persona(
    services: ServicesDep,
    record: dict = Body(..., openapi_examples={"native": {"summary": "A hand-written persona", "value": _NATIVE_EXAMPLE}}),
) -> PersonaCreated:
    """A native persona, an OPeRA user-table row, or an OPeRA personas.jsonl record. Same id: replaced whole."""
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
