"""The llm brain over real HTTP: litellm -> a real OpenAI-compatible server on 127.0.0.1 (no mock_response)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import httpx
import litellm
import pytest

from agent.actions import ClickAction, InputAction, TerminateAction
from agent.brain_answer import BrainError
from agent.brains.llm import LLMBrain
from agent.llm.cache import ResponseCache
from agent.llm.client import LLMClient
from agent.llm.prompts import build_messages
from agent.page.candidate import Candidate
from agent.page.observation import Observation
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.twin_context import TwinContext
from personas.persona import Persona
from tests.support.openai_server import OpenAICompatibleServer, Reply

REPO = Path(__file__).resolve().parents[1]
MODEL = "openai/twin-test"  # unknown to litellm's price map: costs 0
PRICED_MODEL = "openai/gpt-4o-mini"  # in litellm's bundled price map

CANDIDATES = (
    Candidate("nav_bar.search_input", "input", "input", "Search Amazon", "search", 0),
    Candidate("nav_bar.search_button", "clickable", "input", "Go", "search", 1),
    Candidate(
        "search_results.anker_usb_c_cable.product_name", "clickable", "a", "Anker USB C Cable", "product_link", 2, 9.99
    ),
)
PAGE = Observation(
    url="https://www.amazon.com/s?k=usb+c+cable",
    page_type="search_results",
    title="Amazon.com : usb c cable",
    candidates=CANDIDATES,
    by_name={c.name: c for c in CANDIDATES},
    text="Results for usb c cable",
)
CLICK_PRODUCT = (
    '{"rationale": "The Anker one looks cheap and well rated.", '
    '"action": {"type": "click", "name": "search_results.anker_usb_c_cable.product_name"}}'
)


def decision_json(rationale: str, action: dict) -> str:
    return json.dumps({"rationale": rationale, "action": action})


@pytest.fixture
def server():
    with OpenAICompatibleServer() as srv:
        yield srv


@pytest.fixture
def ctx() -> TwinContext:
    persona = Persona(id="user_1", self_description="I hunt for deals.", preferences={"price_consciousness": 5})
    return TwinContext.on_page(persona, PAGE)


def brain_for(srv: OpenAICompatibleServer, model: str = MODEL, **client_kwargs) -> LLMBrain:
    client_kwargs.setdefault("timeout_s", 5.0)
    client_kwargs.setdefault("backoff_initial_s", 0.01)
    client_kwargs.setdefault("backoff_max_s", 0.05)
    return LLMBrain(LLMClient(api_base=srv.base_url, **client_kwargs), default_model=model)


# --- answers, prompts, usage ----------------------------------------------------------------------------


async def test_action_and_rationale_come_from_the_server(server, ctx) -> None:
    server.enqueue(CLICK_PRODUCT)
    decision = await brain_for(server).decide(ctx)

    assert decision.action == ClickAction(name="search_results.anker_usb_c_cable.product_name")
    assert decision.rationale == "The Anker one looks cheap and well rated."
    assert decision.model == MODEL
    assert decision.details["raw"] == CLICK_PRODUCT
    # What reached the server is exactly the prompt, for the model behind the "openai/" prefix.
    [request] = server.requests
    assert request["model"] == "twin-test"
    assert request["messages"] == build_messages(ctx)
    assert request["temperature"] == 0.0


async def test_a_policy_server_answers_from_the_page_in_the_prompt(ctx) -> None:
    def first_input_on_page(request: dict) -> str:
        prompt = request["messages"][1]["content"]
        line = next(row for row in prompt.splitlines() if " | input | " in row)
        return decision_json(
            "I start by typing what I want.", {"type": "input", "name": line.split(" | ")[0], "text": "usb c cable"}
        )

    with OpenAICompatibleServer(policy=first_input_on_page) as srv:
        decision = await brain_for(srv).decide(ctx)
    assert decision.action == InputAction(name="nav_bar.search_input", text="usb c cable")


async def test_usage_comes_from_the_servers_usage_block(server, ctx) -> None:
    server.enqueue(Reply(content=CLICK_PRODUCT, usage=(1234, 56)))
    brain = brain_for(server)
    decision = await brain.decide(ctx)

    assert (decision.usage.prompt_tokens, decision.usage.completion_tokens, decision.usage.total_tokens) == (
        1234,
        56,
        1290,
    )
    assert decision.usage.calls == 1
    assert decision.usage.cost_usd == 0.0  # a model litellm has no price for costs nothing, and does not fail
    assert brain.client.totals.as_dict() | {"cost_usd": 0.0} == {
        "calls": 1,
        "attempts": 1,
        "failures": 0,
        "cache_hits": 0,
        "prompt_tokens": 1234,
        "completion_tokens": 56,
        "total_tokens": 1290,
        "cost_usd": 0.0,
    }


async def test_cost_uses_litellms_local_price_map(server, ctx) -> None:
    server.enqueue(Reply(content=CLICK_PRODUCT, usage=(1000, 100)))
    decision = await brain_for(server, model=PRICED_MODEL).decide(ctx)

    prices = litellm.model_cost["gpt-4o-mini"]
    expected = 1000 * prices["input_cost_per_token"] + 100 * prices["output_cost_per_token"]
    assert expected > 0
    assert decision.usage.cost_usd == pytest.approx(expected)


async def test_sample_mode_sends_temperature_and_seed(server, ctx) -> None:
    ctx = replace(ctx, input=PredictionInput(options=PredictOptions(mode="sample", seed=7)))
    await brain_for(server).decide(ctx)
    assert server.requests[0]["temperature"] == 1.0
    assert server.requests[0]["seed"] == 7


async def test_the_request_model_overrides_the_default(server, ctx) -> None:
    ctx = replace(ctx, input=PredictionInput(model="openai/other-model"))
    decision = await brain_for(server).decide(ctx)
    assert server.requests[0]["model"] == "other-model"
    assert decision.model == "openai/other-model"
    assert decision.action == TerminateAction()  # the server's default reply


async def test_no_model_configured_is_a_brain_error(server, ctx) -> None:
    brain = LLMBrain(LLMClient(api_base=server.base_url), default_model=None)
    with pytest.raises(BrainError, match="no model configured"):
        await brain.decide(ctx)
    assert server.requests == []


# --- output shapes ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "```json\n" + CLICK_PRODUCT + "\n```",
        "Sure, here is what I would do.\n" + CLICK_PRODUCT + "\nLet me know if you need more.",
    ],
)
async def test_wrapped_answers_parse(server, ctx, content: str) -> None:
    server.enqueue(content)
    decision = await brain_for(server).decide(ctx)
    assert decision.action == ClickAction(name="search_results.anker_usb_c_cable.product_name")
    assert decision.details["raw"] == content


async def test_garbage_output_is_a_brain_error_with_the_reason(server, ctx) -> None:
    server.enqueue(Reply(content="I would probably buy something nice.", usage=(10, 8)))
    with pytest.raises(BrainError, match="unparseable output") as caught:
        await brain_for(server).decide(ctx)
    assert caught.value.usage.completion_tokens == 8  # the paid call is still accounted


# --- failures, retries, timeouts, concurrency -------------------------------------------------------------


async def test_a_500_is_retried_then_succeeds(server, ctx) -> None:
    server.enqueue(("status", 500), CLICK_PRODUCT)
    brain = brain_for(server, retries=2)
    decision = await brain.decide(ctx)

    assert decision.action == ClickAction(name="search_results.anker_usb_c_cable.product_name")
    assert decision.details["attempts"] == 2
    assert len(server.requests) == 2
    assert brain.client.totals.attempts == 2 and brain.client.totals.calls == 1


async def test_rate_limits_and_garbage_bodies_are_retried(server, ctx) -> None:
    server.enqueue(("status", 429), ("garbage", "<html>502 bad gateway</html>"), CLICK_PRODUCT)
    decision = await brain_for(server, retries=2).decide(ctx)
    assert decision.details["attempts"] == 3
    assert len(server.requests) == 3


async def test_persistent_5xx_gives_up_after_the_retries(server, ctx) -> None:
    server.enqueue(("status", 503), ("status", 503), ("status", 503), CLICK_PRODUCT)
    with pytest.raises(BrainError, match="HTTP 503 after 2 attempts"):
        await brain_for(server, retries=1).decide(ctx)
    assert len(server.requests) == 2


async def test_auth_errors_are_not_retried(server, ctx) -> None:
    server.enqueue(("status", 401), CLICK_PRODUCT)
    brain = brain_for(server, retries=3)
    with pytest.raises(BrainError, match="authentication refused"):
        await brain.decide(ctx)
    assert len(server.requests) == 1
    assert brain.client.totals.failures == 1


async def test_a_slow_server_times_out_into_a_brain_error(server, ctx) -> None:
    server.enqueue(("sleep", 30, CLICK_PRODUCT), ("sleep", 30, CLICK_PRODUCT))
    with pytest.raises(BrainError, match="timeout after 2 attempts"):
        await brain_for(server, timeout_s=0.5, retries=1).decide(ctx)
    assert len(server.requests) == 2


async def test_concurrency_bound_is_respected(ctx) -> None:
    with OpenAICompatibleServer(("sleep", 0.3, CLICK_PRODUCT)) as srv:
        brain = brain_for(srv, concurrency=2)
        decisions = await asyncio.gather(*(brain.decide(ctx) for _ in range(6)))
        assert len(decisions) == 6 and len(srv.requests) == 6
        assert srv.max_in_flight == 2


def test_one_client_serves_successive_event_loops(server, ctx) -> None:
    brain = brain_for(server, concurrency=1)
    for _ in range(2):

        async def two_at_once():
            return await asyncio.gather(brain.decide(ctx), brain.decide(ctx))

        assert len(asyncio.run(two_at_once())) == 2
    assert len(server.requests) == 4


# --- the response cache ---------------------------------------------------------------------------------


async def test_a_cache_hit_avoids_a_second_http_call(server, ctx) -> None:
    server.enqueue(Reply(content=CLICK_PRODUCT, usage=(100, 20)))
    brain = brain_for(server, cache=ResponseCache())
    first = await brain.decide(ctx)
    second = await brain.decide(ctx)

    assert len(server.requests) == 1
    assert second.action == first.action and second.rationale == first.rationale
    assert (first.details["cached"], second.details["cached"]) == (False, True)
    assert second.usage.calls == 0 and second.usage.total_tokens == 0  # nothing paid the second time
    assert brain.client.totals.cache_hits == 1 and brain.client.totals.calls == 1

    # A different page is a different prompt, so a different key: the server is asked again.
    other_page = Observation(url=None, page_type="other", title="t", candidates=CANDIDATES[:1], by_name={}, text="")
    ctx = replace(ctx, resolved=ResolvedInput(persona=ctx.persona, observation=other_page))
    await brain.decide(ctx)
    assert len(server.requests) == 2


async def test_the_sqlite_cache_survives_a_new_client(server, ctx, tmp_path) -> None:
    path = tmp_path / "llm-cache.sqlite"
    server.enqueue(CLICK_PRODUCT)
    await brain_for(server, cache=ResponseCache(path)).decide(ctx)
    rerun = brain_for(server, cache=ResponseCache(path))
    decision = await rerun.decide(ctx)

    assert len(server.requests) == 1
    assert decision.details["cached"] is True
    assert decision.action == ClickAction(name="search_results.anker_usb_c_cable.product_name")


async def test_unparseable_answers_are_not_cached(server, ctx) -> None:
    server.enqueue("no idea", CLICK_PRODUCT)
    brain = brain_for(server, cache=ResponseCache())
    with pytest.raises(BrainError):
        await brain.decide(ctx)
    decision = await brain.decide(ctx)
    assert len(server.requests) == 2
    assert decision.details["cached"] is False


# --- the server itself, and the network -------------------------------------------------------------------


def test_server_lists_models_and_rejects_unknown_reply_specs(server) -> None:
    listing = httpx.get(server.base_url + "/models").json()
    assert [m["id"] for m in listing["data"]] == ["twin-test"]
    with pytest.raises(ValueError, match="unknown reply spec"):
        server.enqueue(("explode", 1))


def test_a_round_trip_reaches_nothing_but_loopback(tmp_path) -> None:
    """Importing litellm through our client and calling a priced model must not touch the internet
    (no price-list fetch, no tokenizer download): every non-loopback connect is refused and recorded."""
    script = textwrap.dedent(
        """
        import asyncio, json, socket
        attempts = []
        real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo
        def guarded_connect(sock, address, *a):
            host = address[0] if isinstance(address, tuple) else str(address)
            if host not in ("127.0.0.1", "::1", "localhost") and not str(host).startswith("/"):
                attempts.append(str(address))
                raise OSError("network disabled in this test")
            return real_connect(sock, address, *a)
        def guarded_getaddrinfo(host, *a, **k):
            if host not in ("127.0.0.1", "::1", "localhost", None):
                attempts.append(f"dns:{host}")
                raise socket.gaierror("network disabled in this test")
            return real_getaddrinfo(host, *a, **k)
        socket.socket.connect, socket.getaddrinfo = guarded_connect, guarded_getaddrinfo

        from agent.llm.client import LLMClient
        from tests.support.openai_server import OpenAICompatibleServer, Reply
        with OpenAICompatibleServer(Reply(content="ok", usage=(1000, 100))) as srv:
            # a generous deadline: the first call imports litellm's OpenAI route, seconds on a busy machine
            client = LLMClient(api_base=srv.base_url, timeout_s=60, retries=0)
            done = asyncio.run(client.complete("openai/gpt-4o-mini", [{"role": "user", "content": "hi"}]))
        print(json.dumps({"attempts": attempts, "text": done.text, "cost": done.usage.cost_usd}))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["attempts"] == []
    assert report["text"] == "ok" and report["cost"] > 0
