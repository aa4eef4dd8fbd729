"""GET /healthz: ready when the store answers and the brains are loaded; GET /livez: the process is alive."""

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


@router.get("/livez")
async def livez() -> dict:
    """Alive: the process answers. Touches no store, so a Chroma outage makes pods unready, not restarted."""
    return {"status": "ok"}
