"""GET /healthz: ready when the store answers and the brains are loaded."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends

from service.dependencies import services_dep
from service.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
async def healthz(services=Depends(services_dep)) -> Health:
    ids = await asyncio.to_thread(services.store.persona_ids)
    return Health(status="ok", personas=len(ids), brains=services.graph.brains, store=services.store_description)
