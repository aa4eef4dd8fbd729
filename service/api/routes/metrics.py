"""GET /metrics: Prometheus text exposition of this process's metrics (no key: aggregate counts only)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

router = APIRouter(tags=["operations"])


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    body, content_type = request.app.state.metrics.exposition()
    return Response(body, media_type=content_type)
