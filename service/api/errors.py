"""Error bodies: short, field-naming messages for 422s, always encodable, in the shape the OpenAPI schema declares."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError


def printable(text: str) -> str:
    """The text with anything UTF-8 cannot carry (lone surrogates) escaped, so an error message never fails."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _details(errors) -> list[dict]:
    return [
        {"loc": [printable(str(part)) for part in e["loc"]], "msg": printable(e["msg"]), "type": e["type"]}
        for e in errors
    ]


def validation_detail(error: ValidationError) -> list[dict]:
    """A request body checked inside a route (a persona record, a simulation's settings): its fields are located
    under "body", as FastAPI locates the fields it checks itself."""
    return _details({**e, "loc": ("body", *e["loc"])} for e in error.errors(include_url=False, include_input=False))


async def request_validation_response(request: Request, error: RequestValidationError) -> JSONResponse:
    """FastAPI's own handler echoes the input, which fails to encode when it holds a lone surrogate (a 500)."""
    return JSONResponse({"detail": _details(error.errors())}, status_code=422)
