"""The answer's JSON schema, limited to this page: with it, a model server that decodes by schema can only name an
element the prompt listed (or its number), type only into a text field, choose only a drop-down's own options, or
leave.

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
    """{"rationale": str, "action": click | input | terminate} with the element limited to `shown` (by name), or to
    the choices' numbers when the model answers by number."""
    branches: list[dict] = []
    key = "name" if choices is None else "choice"

    def ref(candidates: Sequence[Candidate]) -> list:
        if choices is None:
            return [c.name for c in candidates]
        number_of = {id(c): n for n, c in choices.numbers.items()}
        return [number_of[id(c)] for c in candidates if id(c) in number_of]

    clickable = ref(shown)
    if clickable:
        branches.append(_action("click", {key: {"enum": clickable}}))
    fields = ref([c for c in shown if c.kind == "input"])
    if fields:
        branches.append(
            _action(
                "input",
                {key: {"enum": fields}, "text": {"type": "string", "minLength": 1, "maxLength": MAX_TYPED_CHARS}},
            )
        )
    selects = [c for c in shown if c.kind != "input" and c.takes_text][:MAX_SELECT_BRANCHES]
    for select in selects:
        element = ref([select])
        if element:
            branches.append(_action("input", {key: {"const": element[0]}, "text": {"enum": list(select.options)}}))
    branches.append(_action("terminate", {}))
    return {
        "type": "object",
        "properties": {
            "rationale": {"type": "string", "minLength": 1, "maxLength": MAX_RATIONALE_CHARS},
            "action": {"anyOf": branches},
        },
        "required": ["rationale", "action"],
        "additionalProperties": False,
    }


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
