"""What the LLM brain sends for a schema-constrained answer and for a prompt cut to the context, checked on the
requests that reach a real OpenAI-compatible server on 127.0.0.1 through litellm (the canned server records them;
the real model's side is tests/test_local_model.py)."""

from __future__ import annotations

import json

import pytest

from agent.actions import ClickAction, InputAction, TerminateAction
from agent.brain_answer import BrainError
from agent.brains.llm import LLMBrain
from agent.llm.answer_schema import answer_schema, resolve_structured_output
from agent.llm.client import LLMClient
from agent.page.candidate import Candidate
from agent.page.observation import Observation
from agent.page.parse import parse_page
from agent.prediction_input import PredictionInput
from agent.tasks import Task
from agent.twin_context import TwinContext
from personas.persona import Persona
from tests.conftest import page
from tests.support.openai_server import OpenAICompatibleServer

MODEL = "openai/twin-test"
SIZE = Candidate(
    "product_options.size.select", "clickable", "select", "Size", "product_option", 3, options=("3 ft", "6 ft")
)
CANDIDATES = (
    Candidate("nav_bar.search_input", "input", "input", "Search Amazon", "search", 0),
    Candidate("nav_bar.search_button", "clickable", "input", "Go", "search", 1),
    Candidate(
        "search_results.anker_usb_c_cable.product_name", "clickable", "a", "Anker USB C Cable", "product_link", 2, 9.99
    ),
    SIZE,
)
PAGE = Observation(
    url="https://www.amazon.com/s?k=usb+c+cable",
    page_type="search_results",
    title="usb c cable",
    candidates=CANDIDATES,
    by_name={c.name: c for c in CANDIDATES},
    text="Results for usb c cable",
)
CLICK = json.dumps(
    {
        "rationale": "The Anker one is cheap.",
        "action": {"type": "click", "name": "search_results.anker_usb_c_cable.product_name"},
    }
)


@pytest.fixture
def server():
    with OpenAICompatibleServer() as srv:
        yield srv


def context(observation: Observation = PAGE, task: Task | None = None) -> TwinContext:
    persona = Persona(id="user_1", self_description="I hunt for deals.", preferences={"price_consciousness": 5})
    return TwinContext.on_page(persona, observation, PredictionInput(task=task))


def brain(server, **options) -> LLMBrain:
    return LLMBrain(LLMClient(api_base=server.base_url, timeout_s=60.0, retries=0), default_model=MODEL, **options)


def branches(request: dict) -> dict[str, list[dict]]:
    by_type: dict[str, list[dict]] = {}
    for branch in request["response_format"]["schema"]["properties"]["action"]["anyOf"]:
        by_type.setdefault(branch["properties"]["type"]["const"], []).append(branch["properties"])
    return by_type


async def test_llama_cpp_schema_limits_the_element_to_the_pages_and_says_so(server):
    server.enqueue(CLICK)
    decision = await brain(server, structured_output="llama_cpp").decide(context())
    [request] = server.requests
    assert request["response_format"]["type"] == "json_object"
    kinds = branches(request)
    assert kinds["click"][0]["name"]["enum"] == [c.name for c in CANDIDATES]
    assert [b["name"]["enum"] if "enum" in b["name"] else [b["name"]["const"]] for b in kinds["input"]] == [
        ["nav_bar.search_input"],
        [SIZE.name],
    ]
    assert kinds["input"][1]["text"]["enum"] == ["3 ft", "6 ft"]  # a drop-down: only its own options
    assert set(kinds["terminate"][0]) == {"type"}
    assert decision.details["answer_format"] == "schema (llama_cpp): the element limited to the 4 listed"
    assert decision.action.name == "search_results.anker_usb_c_cable.product_name"


def choice_branches(request: dict) -> list[dict]:
    return request["response_format"]["schema"]["anyOf"]


def choice_numbers(branch: dict) -> list[int]:
    number = branch["properties"]["choice"]
    return number["enum"] if "enum" in number else [number["const"]]


async def test_with_numbered_choices_the_option_picked_decides_the_type(server):
    """Clickables, the text field (its text required), the drop-down (one of its options) and leaving (5, after
    the four elements) are branches told apart by the number alone, written right after the rationale."""
    server.enqueue(json.dumps({"rationale": "Cheap.", "choice": 3}))
    decision = await brain(server, structured_output="llama_cpp", grounding="textual_choices").decide(context())
    click, field, select, leave = choice_branches(server.requests[0])
    assert [choice_numbers(b) for b in (click, field, select, leave)] == [[2, 3], [1], [4], [5]]
    assert [list(b["properties"]) for b in (click, field, select, leave)] == [
        ["rationale", "choice"],
        ["rationale", "choice", "text"],
        ["rationale", "choice", "text"],
        ["rationale", "choice"],
    ]
    assert select["properties"]["text"]["enum"] == ["3 ft", "6 ft"]
    assert all("type" not in b["properties"] for b in (click, field, select, leave))  # no type word to write first
    assert decision.action.name == "search_results.anker_usb_c_cable.product_name"
    assert decision.details["answer_format"] == (
        "schema (llama_cpp): a choice among the 4 numbered elements and leaving"
    )


def test_the_choice_schema_accepts_only_answers_that_ground():
    from jsonschema import Draft202012Validator

    from agent.llm.choices import number_choices

    choices, _ = number_choices(list(CANDIDATES), "textual_choices", None)
    assert choices is not None
    validator = Draft202012Validator(answer_schema(list(CANDIDATES), choices))
    ok = {"rationale": "r"}
    assert validator.is_valid({**ok, "choice": 2}) and validator.is_valid({**ok, "choice": 5})
    assert validator.is_valid({**ok, "choice": 1, "text": "usb c cable"})
    assert validator.is_valid({**ok, "choice": 4, "text": "6 ft"})
    assert not validator.is_valid({**ok, "choice": 1})  # a text field needs its text
    assert not validator.is_valid({**ok, "choice": 4, "text": "10 ft"})  # not one of the drop-down's options
    assert not validator.is_valid({**ok, "choice": 6})  # no such option
    assert not validator.is_valid({"choice": 2})  # no rationale


def test_llama_cpp_turns_the_choice_schema_into_a_grammar():
    """The schema's shape (a root anyOf of objects, integer enums and consts) is one llama.cpp's converter takes."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from agent.llm.choices import number_choices

    choices, _ = number_choices(list(CANDIDATES), "textual_choices", None)
    assert choices is not None
    grammar = json_schema_to_gbnf(json.dumps(answer_schema(list(CANDIDATES), choices)))
    root = next(line for line in grammar.splitlines() if line.startswith("root ::="))
    assert root.count("|") == 3  # four branches: clickables, the field, the drop-down, leaving


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"rationale": "Done here.", "choice": 5}, TerminateAction()),
        (
            {"rationale": "Searching.", "choice": 1, "text": "usb c cable"},
            InputAction(name=CANDIDATES[0].name, text="usb c cable"),
        ),
        ({"rationale": "The longer one.", "choice": 4, "text": "6 ft"}, InputAction(name=SIZE.name, text="6 ft")),
        (
            {"rationale": "Old notation.", "action": {"type": "click", "choice": 2}},
            ClickAction(name=CANDIDATES[1].name),
        ),
        ({"rationale": "Old notation.", "action": {"type": "terminate"}}, TerminateAction()),
    ],
)
async def test_the_free_text_path_reads_the_same_notation_and_the_old_one(server, answer, expected):
    server.enqueue(json.dumps(answer))
    decision = await brain(server, structured_output="off", grounding="textual_choices").decide(context())
    assert "response_format" not in server.requests[0]
    assert decision.details["answer_format"].startswith("free text, parsed")
    assert decision.action == expected and decision.rationale == answer["rationale"]
    if expected.type == "terminate" and "choice" in answer:
        assert decision.details["grounded_to"] == "leave the site" and decision.details["choice"] == 5


async def test_a_choice_past_the_leave_option_is_a_grounding_error_naming_the_options(server):
    server.enqueue(json.dumps({"rationale": "Hm.", "choice": 9}))
    decision = await brain(server, structured_output="off", grounding="textual_choices").decide(context())
    assert decision.details["grounding_error"] == (
        "choice 9 does not exist; the choices are 1-4, or 5 to leave the site"
    )


async def test_openai_form_and_no_schema(server):
    server.enqueue(CLICK, CLICK)
    await brain(server, structured_output="json_schema").decide(context())
    free = await brain(server, structured_output="auto").decide(context())  # a server of one's own: not guessed
    sent = server.requests[0]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["schema"]["required"] == ["rationale", "action"]
    assert "response_format" not in server.requests[1]
    assert free.details["answer_format"].startswith("free text, parsed")


def test_auto_asks_litellm_for_hosted_models():
    assert resolve_structured_output("auto", "gpt-4o-mini", None) == "json_schema"
    assert resolve_structured_output("auto", "openai/smollm2", "http://127.0.0.1:8011/v1") == "off"
    assert resolve_structured_output("llama_cpp", "openai/x", "http://127.0.0.1:8011/v1") == "llama_cpp"


def test_a_page_without_text_fields_offers_no_input():
    schema = answer_schema([CANDIDATES[1]], None)
    kinds = [b["properties"]["type"]["const"] for b in schema["properties"]["action"]["anyOf"]]
    assert kinds == ["click", "terminate"]


async def test_a_prompt_over_the_context_is_cut_to_the_highest_ranked_elements(server):
    """The canned server has no tokenizer route: the count is the estimate, and the page is cut to fit it."""
    observation = parse_page(page("search_results.html"), url="https://www.amazon.com/s?k=usb+c+cable")

    server.enqueue(CLICK)
    ctx = context(observation, task=Task(goal="buy the Samsung 25W USB-C cable in white"))
    decision = await brain(server, structured_output="llama_cpp", context_tokens=4096).decide(ctx)
    fitted = decision.details["context"]
    assert fitted["counted_by"] == "estimate (characters / 4)"
    assert fitted["prompt_tokens"] <= 4096 - fitted["answer_tokens_kept"]
    assert 0 < fitted["elements_shown"] < fitted["elements_on_page"] == len(observation.candidates)
    listed = branches(server.requests[0])["click"][0]["name"]["enum"]
    assert len(listed) == fitted["elements_shown"]
    assert "search_results.samsung_original_25w_usb_c_to_usb_c_cable_3_3ft_white.product_name" in listed
    assert server.requests[0]["max_tokens"] == 384


async def test_a_prompt_that_cannot_fit_is_refused_before_any_call(server):
    with pytest.raises(BrainError, match=r"not sent: the prompt needs \d+ tokens but the model's context holds 300"):
        await brain(server, context_tokens=300).decide(context())
    assert server.requests == []
