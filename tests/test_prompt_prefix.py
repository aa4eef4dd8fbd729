"""What twins on one page share comes first in the prompt, byte for byte, so a server that keeps the last prompt's
KV cache (llama.cpp) reads the page once for a whole population; and the page is sized the same for every twin."""

from __future__ import annotations

import asyncio

import pytest

from agent.actions import ClickAction, InputAction
from agent.brains.llm import ANSWER_TOKENS, LLMBrain
from agent.history import Step
from agent.llm.client import LLMClient
from agent.llm.page_block import PAGE_CLOSE, PAGE_OPEN
from agent.page.parse import parse_page
from agent.prediction_input import PredictionInput
from agent.sample_pages import sample_page
from agent.twin_context import TwinContext
from personas.memory_types import Memory
from personas.persona import Persona

HISTORY = [
    Step(action=InputAction(name="nav_bar.search_input", text="usb c cable"), rationale="My old cable frayed."),
    Step(action=ClickAction(name="nav_bar.search_button"), click_type="search"),
]
CONTEXT = 4096


def person(pid: str, about: str) -> Persona:
    return Persona(
        id=pid,
        demographics={"gender": "Woman", "age": "25-34", "city": "Boston"},
        shopping={"frequency": "Weekly", "monthly_spend": "$100-$200", "prime": True},
        preferences={"price_consciousness": 5, "review_engagement": 4},
        self_description=about,
    )


@pytest.fixture(scope="module")
def search_page():
    return parse_page(sample_page("search_results.html"), url="https://www.amazon.com/s?k=usb+c+cable")


def fitted(page, persona: Persona, memories: list[Memory] | None = None):
    brain = LLMBrain(LLMClient(), "openai/local", context_tokens=CONTEXT)  # no server: counted as chars / 4
    ctx = TwinContext.on_page(persona, page, PredictionInput(history=HISTORY), memories=memories or [])
    return asyncio.run(brain.fitted_prompt(ctx, "openai/local"))


def test_twins_on_one_page_share_the_instructions_and_the_whole_page_as_a_prefix(search_page) -> None:
    brief = fitted(search_page, person("user_a", "I buy the cheapest thing."))
    wordy = fitted(search_page, person("user_b", "I research every purchase for weeks. " * 20))

    assert brief.messages[0] == wordy.messages[0]  # the constant system prompt
    a, b = brief.messages[1]["content"], wordy.messages[1]["content"]
    assert a.index(PAGE_OPEN) < a.index("# Who you are")
    page_end = a.index(PAGE_CLOSE) + len(PAGE_CLOSE)
    assert a[:page_end] == b[:page_end]  # the page block is the same although the profiles differ in length
    assert a[page_end:] != b[page_end:]
    # the page had to be cut to fit, and the cut did not depend on who was reading
    assert brief.details["context"]["elements_shown"] < brief.details["context"]["elements_on_page"]
    assert [c.name for c in brief.shown] == [c.name for c in wordy.shown]


def test_a_twin_longer_than_the_allowance_still_fits_with_fewer_elements(search_page) -> None:
    usual = fitted(search_page, person("user_a", "I buy the cheapest thing."))
    memories = [
        Memory(id=f"m{i}", persona_id="user_c", kind="interview", text="I compare prices. " * 40) for i in range(8)
    ]
    long = fitted(search_page, person("user_c", "I buy the cheapest thing."), memories)

    limit = CONTEXT - ANSWER_TOKENS
    assert usual.details["context"]["prompt_tokens"] <= limit and long.details["context"]["prompt_tokens"] <= limit
    assert long.details["context"]["elements_shown"] < usual.details["context"]["elements_shown"]
