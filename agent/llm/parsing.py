"""Reading a model's free-text answer into a rationale and an Action.

Models wrap their JSON in prose, code fences or <think> blocks, rename keys, and write the action as a
string ("click(nav_bar.search_button)"); the parser accepts all of these so that a usable answer is not
thrown away, and says why when there is no action at all (the brain turns that into a BrainError).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator

from pydantic import ValidationError

from agent.actions import Action, parse_action

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_CODE_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_ACTION_CALL = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_TYPE_ALIASES = {
    "click": "click",
    "tap": "click",
    "press": "click",
    "select": "click",
    "input": "input",
    "type": "input",
    "fill": "input",
    "enter": "input",
    "terminate": "terminate",
    "stop": "terminate",
    "end": "terminate",
    "exit": "terminate",
    "leave": "terminate",
    "quit": "terminate",
    "finish": "terminate",
}
_NAME_KEYS = (
    "name",
    "element",
    "semantic_id",
    "target",
    "id",
    "choice",
    "mark",
)  # choice / mark: a number (agent/llm/choices.py)
_TEXT_KEYS = ("text", "value", "input_text", "query")
_RATIONALE_KEYS = ("rationale", "reasoning", "reason", "thought", "thoughts", "explanation")


def parse_decision_text(text: str) -> tuple[str, Action]:
    """(rationale, action) from a model's answer; raises ValueError saying why when there is none.

    Accepts code fences and prose around the JSON, `action` as an object or as a string such as
    "click(nav_bar.search_button)" or "terminate", a top-level {"type": ...} without "action", and a multiple
    choice {"rationale": ..., "choice": 7} (with "text" for a text field), read as a click or an input on option 7
    until the numbered choices say what option 7 is (agent/llm/choices.py).
    """
    if not text or not text.strip():
        raise ValueError("empty output")
    cleaned = _THINK_BLOCK.sub(" ", text)
    segments = [m.group(1) for m in _CODE_FENCE.finditer(cleaned)] + [cleaned]
    problems: list[str] = []
    for segment in segments:
        for obj in _objects_in(segment):
            decision_obj = _find_decision_object(obj)
            if decision_obj is None:
                continue
            try:
                return _decision_from_object(decision_obj)
            except ValueError as exc:
                problems.append(str(exc))
    if problems:
        raise ValueError(problems[0])
    bare = cleaned.strip().strip("`").strip()
    if _ACTION_CALL.match(bare):  # the whole answer is just an action call, e.g. "terminate"
        try:
            return "", _action_from_string(bare)
        except ValueError:
            pass
    excerpt = " ".join(text.split())[:80]
    raise ValueError(f"no JSON object with an action in the output: {excerpt!r}")


_DECODER = json.JSONDecoder(strict=False)


def _objects_in(segment: str) -> Iterator[dict]:
    """Dicts found in the text: strict JSON at each '{' first, then lenient readings of balanced {...}."""
    for match in re.finditer(r"\{", segment):
        try:
            value, _ = _DECODER.raw_decode(segment, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value
    for chunk in balanced_objects(segment):
        value = _load_object(chunk)
        if value is not None:
            yield value


def balanced_objects(text: str) -> Iterator[str]:
    """Each top-level {...} in order, skipping braces inside double-quoted strings."""
    start = depth = 0
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"' and depth > 0:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                yield text[start : index + 1]


def _load_object(chunk: str) -> dict | None:
    """JSON first; then without trailing commas; then a Python literal (single quotes, True/None)."""
    attempts = (
        lambda: json.loads(chunk, strict=False),
        lambda: json.loads(re.sub(r",\s*([}\]])", r"\1", chunk), strict=False),
        lambda: ast.literal_eval(chunk),
    )
    for attempt in attempts:
        try:
            value = attempt()
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return value if isinstance(value, dict) else None
    return None


def _find_decision_object(obj: dict, depth: int = 0) -> dict | None:
    """The dict holding the action: this one (an action, a type, or a multiple choice's bare number), or one nested
    in a wrapper such as {"response": {...}}."""
    if "action" in obj or "type" in obj or "choice" in obj:
        return obj
    if depth < 3:
        for value in obj.values():
            if isinstance(value, dict):
                found = _find_decision_object(value, depth + 1)
                if found is not None:
                    return found
    return None


def _decision_from_object(obj: dict) -> tuple[str, Action]:
    rationale = next((obj[k] for k in _RATIONALE_KEYS if isinstance(obj.get(k), str)), "")
    raw_action = obj.get("action", obj)
    if isinstance(raw_action, str):
        verb = raw_action.strip().lower()
        if verb in _TYPE_ALIASES and any(k in obj for k in _NAME_KEYS):
            raw_action = {**obj, "type": verb}  # {"action": "click", "name": "..."}
        else:
            return rationale.strip(), _action_from_string(raw_action)
    if not isinstance(raw_action, dict):
        raise ValueError(f"'action' must be an object or a string, not {type(raw_action).__name__}")
    return rationale.strip(), _action_from_dict(raw_action)


def _action_from_dict(raw: dict) -> Action:
    name = next((_name_text(raw[k]) for k in _NAME_KEYS if _name_text(raw.get(k))), None)
    text = next(
        (raw[k] for k in _TEXT_KEYS if isinstance(raw.get(k), (str, int, float)) and not isinstance(raw.get(k), bool)),
        None,
    )
    declared = raw.get("type")
    verb_keys = [k for k in raw if isinstance(k, str) and k.lower() in _TYPE_ALIASES and k.lower() != "type"]
    if declared is None and len(verb_keys) == 1 and isinstance(raw[verb_keys[0]], str):
        return _validated(_TYPE_ALIASES[verb_keys[0].lower()], raw[verb_keys[0]], text)  # {"click": "name"}
    if isinstance(declared, str) and declared.strip():
        kind = _TYPE_ALIASES.get(declared.strip().lower())
        if kind is None:
            raise ValueError(f"unknown action type {declared!r}; expected click, input or terminate")
    elif name is not None:
        kind = "input" if text is not None else "click"
    else:
        raise ValueError("the action has no type and no element name")
    return _validated(kind, name, text)


def _name_text(value: object) -> str | None:
    """An element's name, or a choice's number (3, "3", "[3]"), as text; None when there is none."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


def _action_from_string(raw: str) -> Action:
    match = _ACTION_CALL.match(raw)
    if not match:
        raise ValueError(
            f'cannot read action {raw[:80]!r}; expected e.g. click(name), input(name, "text") or terminate'
        )
    kind = _TYPE_ALIASES.get(match.group(1).lower())
    if kind is None:
        raise ValueError(f"unknown action type {match.group(1)!r}; expected click, input or terminate")
    args = (match.group(2) or "").strip()
    if kind == "terminate":
        return _validated("terminate", None, None)
    if kind == "click":
        return _validated("click", _unquote(args), None)
    name, _, typed = args.partition(",")
    return _validated("input", _unquote(name), _unquote(typed) if typed.strip() else None)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        try:
            return json.loads(value) if value[0] == '"' else value[1:-1]
        except json.JSONDecodeError:
            return value[1:-1]
    return value


def _validated(kind: str, name: object, text: object) -> Action:
    data: dict = {"type": kind}
    if kind in ("click", "input"):
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"a {kind} action needs an element name")
        data["name"] = name.strip()
    if kind == "input":
        if text is None:
            raise ValueError("an input action needs the text typed")
        data["text"] = str(text)
    try:
        return parse_action(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"invalid {kind} action: {first.get('loc')} {first.get('msg')}") from exc
