"""GET /healthz: ready when the store answers and the brains are loaded; GET /livez: the process is alive."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter

from service.api.dependencies import ServicesDep
from service.api.schemas import Health
from service.tenancy import ADMIN, acting_as

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
@router.head("/healthz", include_in_schema=False)  # load balancers and curl -I probe with HEAD
async def healthz(services: ServicesDep) -> Health:
    """Aggregate only (like /metrics): every tenant's personas counted, the kind of store, never its path."""
    with acting_as(ADMIN):
        ids = await asyncio.to_thread(services.store.persona_ids)
    return Health(
        status="ok",
        personas=len(ids),
        brains=services.graph.brains,
        store="chroma server" if services.settings.chroma_url else "embedded chroma",
    )


@router.get("/livez")
@router.head("/livez", include_in_schema=False)
async def livez() -> dict:
    """Alive: the process answers. Touches no store, so a Chroma outage makes pods unready, not restarted."""
    return {"status": "ok"}
