"""How the world reaches a twin: the FastAPI app, its routes and settings, and the CLI."""
