"""FastAPI dependencies: the app's long-lived services, injected per request."""

from __future__ import annotations

from fastapi import Request

from service.container import Services


def services_dep(request: Request) -> Services:
    return request.app.state.services
