"""Reading a spec file's text into a mapping, with errors a person can act on: `file:line:column: one sentence`
(from the parser's own mark and problem), never the parser's multi-line dump."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml


class SpecTextError(ValueError):
    """The file is not valid YAML/JSON, or not a mapping; the message starts with file:line:column."""


def is_yaml(path: Path) -> bool:
    return path.suffix.lower() in (".yaml", ".yml")


def read_mapping(path: Path, text: str) -> dict:
    """The document in `text` (YAML for .yaml/.yml, JSON otherwise), which must be a mapping."""
    data = _parse_yaml(path, text) if is_yaml(path) else _parse_json(path, text)
    if not isinstance(data, dict):
        line, column = _top_position(path, text)
        kind = "empty" if data is None else f"a {_kind(data)}"
        raise SpecTextError(
            f"{path}:{line}:{column}: the document is {kind}; an experiment spec is a mapping "
            "(name:, variants:, population: ...)."
        )
    return data


def _parse_yaml(path: Path, text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = error.problem or error.context or "cannot be parsed"
        raise SpecTextError(f"{where}: not valid YAML: {problem}{_context(error)}.") from None
    except yaml.YAMLError as error:  # e.g. a reader error (a control character): no mark to point at
        raise SpecTextError(f"{path}: not valid YAML: {str(error).splitlines()[0]}.") from None


def _context(error: yaml.MarkedYAMLError) -> str:
    """The parser's context ("while scanning a quoted scalar"), with where it started when that is elsewhere."""
    if not error.context or not error.problem:
        return ""
    mark = error.context_mark
    elsewhere = mark is not None and mark != error.problem_mark
    started = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None and elsewhere else ""
    return f" ({error.context}{started})"


def _parse_json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SpecTextError(f"{path}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}.") from None


def _top_position(path: Path, text: str) -> tuple[int, int]:
    """Where the document's top value starts (after comments and blank lines), 1-based."""
    if is_yaml(path):
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            node = None
        if node is not None:
            return node.start_mark.line + 1, node.start_mark.column + 1
    stripped = text.lstrip()
    before = text[: len(text) - len(stripped)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def _kind(data: object) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(data), type(data).__name__
    )
