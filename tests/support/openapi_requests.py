"""Requests built from an OpenAPI document, with every field filled, then one field at a time set to an extreme
value: for checking that no operation of the API fails (5xx) or answers outside its schema on such input."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Request:
    method: str
    path: str  # the template, e.g. /personas/{persona_id}
    path_parameters: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    changed: str = ""  # which field holds the extreme value


def _resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        node: Any = document
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def filled(document: dict, schema: dict, depth: int = 0) -> Any:
    """A value for `schema` with every property present (the first option of a union, one item per list)."""
    schema = _resolve(document, schema)
    if depth > 12:
        return None
    example = (
        copy.deepcopy(schema["examples"][0])
        if isinstance(schema.get("examples"), list) and schema["examples"]
        else None
    )
    if "properties" in schema:  # every property, the example's values where it has them
        value = {name: filled(document, sub, depth + 1) for name, sub in schema["properties"].items()}
        return _merged(value, example) if isinstance(example, dict) else value
    if example is not None:
        return example
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for union in ("anyOf", "oneOf", "allOf"):
        if union in schema:
            options = [o for o in schema[union] if _resolve(document, o).get("type") != "null"]
            return filled(document, options[0], depth + 1) if options else None
    kind = schema.get("type")
    if kind == "object":
        return {}
    if kind == "array":
        return [filled(document, schema.get("items", {}), depth + 1)]
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return False
    if kind == "string":
        return "x"
    return None


def _merged(filled_value: dict, example: dict) -> dict:
    """The example's values over the filled ones, key by key at every level, so no field of either is lost."""
    merged = dict(filled_value)
    for key, value in example.items():
        both_dicts = isinstance(value, dict) and isinstance(merged.get(key), dict)
        merged[key] = _merged(merged[key], value) if both_dicts else value
    return merged


def base_requests(document: dict, path_values: dict[str, str]) -> Iterator[Request]:
    """One request per operation, every parameter and body field filled (the declared example for free-form bodies)."""
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            request = Request(method.upper(), path)
            for parameter in operation.get("parameters", []):
                target = request.path_parameters if parameter["in"] == "path" else request.query
                if parameter["in"] in ("path", "query"):
                    target[parameter["name"]] = path_values.get(
                        parameter["name"], filled(document, parameter["schema"])
                    )
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if content:
                examples = list(content.get("examples", {}).values())
                request.body = copy.deepcopy(examples[0]["value"]) if examples else filled(document, content["schema"])
            yield request


def _leaves(value: Any, where: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _leaves(child, (*where, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _leaves(child, (*where, index))
    else:
        yield where, value


def _replaced(value: Any, where: tuple, new: Any) -> Any:
    value = copy.deepcopy(value)
    node = value
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = new
    return value


def with_extremes(request: Request, text: str, number: int) -> Iterator[Request]:
    """Copies of `request`, each with one string set to `text` or one integer set to `number`."""
    for part in ("path_parameters", "query", "body"):
        for where, leaf in _leaves(getattr(request, part)):
            if not where or isinstance(leaf, bool):
                continue
            new = text if isinstance(leaf, str) else number if isinstance(leaf, int) else None
            if new is None:
                continue
            changed = copy.copy(request)
            setattr(changed, part, _replaced(getattr(request, part), where, new))
            changed.changed = f"{part}.{'.'.join(map(str, where))}"
            yield changed
