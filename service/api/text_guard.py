"""Refuse JSON bodies holding a lone surrogate (`"\\ud800"`) with a 422 that says where, before anything uses them.

JSON may escape half of a UTF-16 pair on its own; Python decodes it into a str that cannot be encoded as UTF-8,
so whatever touches it later (the tokenizer embedding a persona, Chroma, the JSON encoder of an error message)
fails with a 500. Checked once per request on the parsed body (cached by Starlette: no second parse).
"""

from __future__ import annotations

import re

from fastapi import HTTPException, Request, status

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")  # a valid pair decodes to one code point above U+FFFF
# A surrogate can only reach the parsed body through a \uD800-\uDFFF escape in the raw JSON (raw surrogate
# bytes are not UTF-8 and fail to parse): a body without one is let through without walking it.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def first_lone_surrogate(value: object) -> list[str] | None:
    """The location (keys and indexes) of the first string or key holding a lone surrogate, else None."""
    pending: list[tuple[object, list[str]]] = [(value, [])]
    while pending:
        item, where = pending.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return where
        elif isinstance(item, dict):
            for key, child in item.items():
                if _LONE_SURROGATE.search(key):
                    return [*where, "<key>"]
                pending.append((child, [*where, key]))
        elif isinstance(item, list):
            pending.extend((child, [*where, str(i)]) for i, child in enumerate(item))
    return None


async def reject_lone_surrogates(request: Request) -> None:
    if "json" not in request.headers.get("content-type", ""):
        return
    raw = await request.body()
    if not raw or not _SURROGATE_ESCAPE.search(raw):
        return
    try:
        body = await request.json()
    except ValueError:
        return  # not JSON: FastAPI's own 4xx says so
    where = first_lone_surrogate(body)
    if where is not None:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            f"body.{'.'.join(where)}: text holds a lone UTF-16 surrogate (\\ud800-\\udfff), "
            "which is not valid Unicode text",
        )
