"""A dataset cell that holds an object either as a mapping or as its JSON text (parquet and JSONL copies of the same
rows differ so): one reader, with one way of saying what is wrong."""

from __future__ import annotations

import json
from collections.abc import Mapping


def json_object(
    value: object, what: str, *, verb: str = "is", expected: str = "an object", blank_is_empty: bool = False
) -> Mapping:
    """`value` as a mapping, parsing it when it is JSON text; ValueError naming `what` (with `verb`: "is" or "are")
    when it is neither. With `blank_is_empty`, blank text is an empty mapping."""
    if isinstance(value, str):
        if blank_is_empty and not value.strip():
            return {}
        try:
            value = json.loads(value)
        except json.JSONDecodeError as error:
            raise ValueError(f"{what} {verb} not JSON: {error.msg}") from None
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} {verb} a {type(value).__name__}, not {expected}")
    return value
