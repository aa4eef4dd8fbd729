"""The ASGI entry point: `uvicorn service.main:app` (settings from TWINSIM_* variables)."""

from service.app import create_app

app = create_app()
