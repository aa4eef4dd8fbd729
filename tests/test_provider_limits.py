"""At most N LLM calls in flight to one provider from a process (agent/llm/provider_slots.py), against the real
OpenAI-compatible loopback server: clients built from the same settings, each on its own thread and event loop
(two experiment runs, a live simulation and the API side by side), together never put more than the provider's
limit in flight; without the shared slots they do. A cancelled wait gives no slot away, and the slots travel to
another process (a Ray worker) as their limits."""

from __future__ import annotations

import asyncio
import pickle
import threading

import pytest

from agent.llm.client import LLMClient
from agent.llm.provider_slots import ProviderSlots, provider_key, shared_slots
from service.container import build_llm_client
from service.settings import Settings
from tests.support.openai_server import DEFAULT_CONTENT, OpenAICompatibleServer

MODEL = "openai/twin-test"
SLOW = ("sleep", 0.25, DEFAULT_CONTENT)


def calls_from_threads(clients: list[LLMClient], calls_each: int) -> list:
    """Every client makes `calls_each` calls at once, each client on a thread and event loop of its own."""
    answers: list = []
    errors: list = []

    def run(client: LLMClient) -> None:
        async def many() -> list:
            messages = [{"role": "user", "content": "next action?"}]
            return list(await asyncio.gather(*(client.complete(MODEL, messages) for _ in range(calls_each))))

        try:
            answers.extend(asyncio.run(many()))
        except Exception as error:  # noqa: BLE001 - reported by the test below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return answers


def test_clients_built_from_the_same_settings_share_the_providers_limit():
    with OpenAICompatibleServer(SLOW) as server:
        origin = provider_key(MODEL, server.base_url)
        settings = Settings(llm_api_base=server.base_url, llm_concurrency=8, llm_provider_limits={origin: 2})
        clients = [build_llm_client(settings) for _ in range(3)]  # e.g. the service's and two experiment runs'
        answers = calls_from_threads(clients, calls_each=4)

        assert len(answers) == 12 and server.completions_served == 12
        assert server.max_in_flight == 2  # 3 clients x 4 calls wanted 12 at once; the provider saw 2


def test_without_shared_slots_each_client_only_bounds_itself():
    with OpenAICompatibleServer(SLOW) as server:
        clients = [LLMClient(api_base=server.base_url, concurrency=2) for _ in range(3)]
        calls_from_threads(clients, calls_each=4)
        assert server.max_in_flight > 2  # what the shared slots prevent


def test_the_default_limit_covers_providers_not_listed():
    with OpenAICompatibleServer(SLOW) as server:
        settings = Settings(llm_api_base=server.base_url, llm_provider_limit=3, llm_provider_limits={"anthropic": 1})
        calls_from_threads([build_llm_client(settings) for _ in range(2)], calls_each=5)
        assert server.max_in_flight == 3


def test_limits_are_keyed_by_the_server_a_call_goes_to():
    assert provider_key("openai/gpt-4.1", None) == "openai"
    assert provider_key("gpt-4.1", None) == "gpt-4.1"
    assert provider_key("openai/x", "http://127.0.0.1:8001/v1") == "http://127.0.0.1:8001"
    slots = ProviderSlots({"OpenAI": 4, "http://127.0.0.1:8001/": 1}, default=2)
    assert (slots.limit_of("openai"), slots.limit_of("http://127.0.0.1:8001"), slots.limit_of("ollama")) == (4, 1, 2)
    with pytest.raises(ValueError, match="at least 1"):
        ProviderSlots({"openai": 0})
    with pytest.raises(ValueError, match="at least 1"):
        Settings(llm_provider_limits={"openai": 0})


def test_a_cancelled_wait_gives_no_slot_away():
    slots = ProviderSlots({"p": 1})

    async def scenario() -> int:
        holding = asyncio.Event()
        release = asyncio.Event()

        async def holder() -> None:
            async with slots.slot("p"):
                holding.set()
                await release.wait()

        first = asyncio.create_task(holder())
        await holding.wait()
        waiter = asyncio.create_task(slots.slot("p").__aenter__())
        await asyncio.sleep(0.05)
        waiter.cancel()  # gave up while the slot was taken
        release.set()
        await first
        with pytest.raises(asyncio.CancelledError):
            await waiter
        async with slots.slot("p"):  # the slot came back: the next caller gets it at once
            return slots.gate("p").in_flight

    assert asyncio.run(asyncio.wait_for(scenario(), 5)) == 1
    assert slots.gate("p").in_flight == 0


def test_a_client_travels_to_another_process_with_its_limits_and_without_this_ones_state():
    slots = shared_slots((("openai", 3),), 5)
    client = LLMClient(concurrency=2, slots=slots)
    there = pickle.loads(pickle.dumps(client))
    assert there.slots is slots  # in the same process, the same slots; elsewhere, that process's for these limits
    assert (there.slots.limits, there.slots.default, there.concurrency) == ({"openai": 3}, 5, 2)
    assert there.cache is None and there.totals.attempts == 0
