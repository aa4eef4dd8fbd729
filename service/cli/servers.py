"""`twinsim serve` and `twinsim shop`: the two HTTP servers this checkout runs, the API and the demo shop that live
simulations browse (the local model's server is `twinsim llm serve`, service/cli/llm_serve.py)."""

from __future__ import annotations

import typer

from service.cli.failure import fail
from service.settings import Settings


def serve(host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Run the HTTP API (uvicorn). On SIGTERM, in-flight requests get TWINSIM_SHUTDOWN_GRACE_S to finish."""
    import uvicorn

    from service.api.request_log import uvicorn_log_config

    settings = Settings()
    if settings.chroma_url is None:  # the embedded store: this process must be its only one
        if workers > 1:
            fail(
                "several worker processes cannot share the embedded store; run a Chroma server "
                "(`chroma run --path DIR --port 8001`) and set TWINSIM_CHROMA_URL=http://127.0.0.1:8001"
            )
        from personas.store_lock import hold_store_directory

        hold_store_directory(settings.chroma_path)
    uvicorn.run(
        "service.api.main:app",
        host=host,
        port=port,
        workers=workers,
        log_level=settings.log_level,
        timeout_graceful_shutdown=settings.shutdown_grace_s,  # type: ignore[arg-type]  # uvicorn waits with asyncio.wait_for: float seconds work
        log_config=uvicorn_log_config(settings.log_level),
        access_log=False,
    )  # the app writes one JSON line per request itself


def shop(host: str = "127.0.0.1", port: int = typer.Option(8100, min=1, max=65535)) -> None:
    """Serve the demo shop (twinshop) for live simulations; `?variant=b` is the B side of its A/B switch."""
    import uvicorn

    uvicorn.run("service.demo_shop.app:app", host=host, port=port, log_level="warning")
