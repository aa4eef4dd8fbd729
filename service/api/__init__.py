"""The HTTP API: the FastAPI app, its routes per resource, and what guards every request (keys, limits, logs)."""
