"""The ASGI entry point: `uvicorn service.api.main:app` (settings from TWINSIM_* variables)."""

from service.api.app import create_app

app = create_app()
