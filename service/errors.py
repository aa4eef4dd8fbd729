"""Turn validation errors into short, field-naming messages for 422 responses."""

from __future__ import annotations

from pydantic import ValidationError


def validation_detail(error: ValidationError) -> list[dict]:
    return [
        {"loc": [str(part) for part in e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in error.errors(include_url=False, include_input=False)
    ]
