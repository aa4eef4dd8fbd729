"""The answer's JSON schema, limited to this page: with it, a model server that decodes by schema can only name an
element the prompt listed (or pick its number, or the number that leaves), type only into a text field, choose only
a drop-down's own options, or leave.

Which servers take a schema, and in which form, is said explicitly (TWINSIM_LLM_STRUCTURED_OUTPUT), never guessed
from an error:
    llama_cpp     llama.cpp / llama-cpp-python: response_format {"type": "json_object", "schema": ...}
                  (they refuse OpenAI's "json_schema" form)
    json_schema   OpenAI's form, {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}, which litellm
                  passes on or translates for the providers it knows (OpenAI, vLLM, Gemini, ...)
    off           no schema: the answer is parsed from free text and a bad one is asked again once
    auto          json_schema when litellm's model map says the hosted model supports it; off for a model on a
                  server of one's own (api_base), whose kind litellm cannot know
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from agent.llm.choices import ChoiceSet
from agent.page.candidate import Candidate

StructuredOutput = Literal["auto", "llama_cpp", "json_schema", "off"]
STRUCTURED_OUTPUTS: tuple[str, ...] = ("auto", "llama_cpp", "json_schema", "off")
MAX_RATIONALE_CHARS = 300  # a small model can otherwise write until max_tokens inside the string
MAX_TYPED_CHARS = 80
MAX_SELECT_BRANCHES = 24  # one branch per drop-down (its options as the enum); more would bloat the grammar


def resolve_structured_output(setting: StructuredOutput, model: str, api_base: str | None) -> str:
    """The form to ask in for this model: llama_cpp, json_schema or off."""
    if setting != "auto":
        return setting
    if api_base:
        return "off"
    try:
        from agent.llm.offline_litellm import load_litellm

        return "json_schema" if load_litellm().supports_response_schema(model=model) else "off"
    except Exception:  # noqa: BLE001 - an unmapped model: litellm cannot say, so no schema
        return "off"


def answer_schema(shown: Sequence[Candidate], choices: ChoiceSet | None) -> dict:
    """The answer's schema for this page: by number when the elements are numbered (choice_schema), else
    {"rationale": str, "action": click | input | terminate} with the element limited to `shown` by name."""
    if choices is not None:
        return choice_schema(shown, choices)
    branches: list[dict] = []
    names = [c.name for c in shown]
    if names:
        branches.append(_action("click", {"name": {"enum": names}}))
    fields = [c.name for c in shown if c.kind == "input"]
    if fields:
        branches.append(_action("input", {"name": {"enum": fields}, "text": _TYPED}))
    for select in _selects(shown):
        branches.append(_action("input", {"name": {"const": select.name}, "text": {"enum": list(select.options)}}))
    branches.append(_action("terminate", {}))
    return {
        "type": "object",
        "properties": {"rationale": _RATIONALE, "action": {"anyOf": branches}},
        "required": ["rationale", "action"],
        "additionalProperties": False,
    }


def choice_schema(shown: Sequence[Candidate], choices: ChoiceSet) -> dict:
    """A multiple choice (SeeAct): {"rationale": str, "choice": n} with n an element to click or the leave option,
    or {"rationale", "choice": a text field's n, "text": str}, or a drop-down's n with one of its options as the
    text. The branches differ by the number alone, written right after the rationale, so the option picked decides
    the action's type: under a schema whose first word was the type, a small model always wrote "click"."""
    number_of = {id(c): n for n, c in choices.numbers.items()}
    numbered = [c for c in shown if id(c) in number_of]
    selects = _selects(numbered)
    typed = {id(c) for c in numbered if c.kind == "input"} | {id(c) for c in selects}
    branches: list[dict] = []
    clickable = [number_of[id(c)] for c in numbered if id(c) not in typed]
    if clickable:
        branches.append(_choice({"enum": clickable}))
    fields = [number_of[id(c)] for c in numbered if c.kind == "input"]
    if fields:
        branches.append(_choice({"enum": fields}, _TYPED))
    for select in selects:
        branches.append(_choice({"const": number_of[id(select)]}, {"enum": list(select.options)}))
    branches.append(_choice({"const": choices.leave}))
    return {"type": "object", "anyOf": branches}  # a root object for servers that require one; each branch is one


_RATIONALE = {"type": "string", "minLength": 1, "maxLength": MAX_RATIONALE_CHARS}
_TYPED = {"type": "string", "minLength": 1, "maxLength": MAX_TYPED_CHARS}


def _selects(shown: Sequence[Candidate]) -> list[Candidate]:
    """The drop-downs that get a branch of their own (their options as the enum); the rest stay clickable."""
    return [c for c in shown if c.kind != "input" and c.takes_text and c.options][:MAX_SELECT_BRANCHES]


def _choice(number: dict, text: dict | None = None) -> dict:
    fields = {"rationale": _RATIONALE, "choice": number, **({"text": text} if text is not None else {})}
    return {"type": "object", "properties": fields, "required": list(fields), "additionalProperties": False}


def _action(kind: str, fields: dict) -> dict:
    return {
        "type": "object",
        "properties": {"type": {"const": kind}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


def response_format(form: str, schema: dict) -> dict | None:
    """The request's response_format for this form (None: off)."""
    if form == "llama_cpp":
        return {"type": "json_object", "schema": schema}
    if form == "json_schema":
        # strict mode would refuse minLength/maxLength on some providers: the enum is what grounds the answer
        return {"type": "json_schema", "json_schema": {"name": "twin_action", "schema": schema, "strict": False}}
    return None
