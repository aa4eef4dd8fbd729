"""LLM calls from Ray workers keep to the provider's limit across the whole cluster (agent/llm/cluster_slots.py), on
a real two-node cluster on this machine (ray.cluster_utils: a head and a worker node, each with its own raylet and
worker processes) against the real OpenAI-compatible loopback server: tasks on both nodes, in several worker
processes, each wanting four calls at once, never put more than the limit in flight together. A slot whose holder
died is taken back when its lease lapses, so a killed worker cannot starve the others."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from agent.llm.client import LLMClient
from agent.llm.cluster_slots import keeper
from agent.llm.provider_slots import ProviderSlots, provider_key
from tests.support.openai_server import DEFAULT_CONTENT, OpenAICompatibleServer

pytestmark = pytest.mark.integration
ray = pytest.importorskip("ray")
MODEL = "openai/twin-test"
SLOW = ("sleep", 0.25, DEFAULT_CONTENT)


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    for attempt in range(5):  # Ray gives a raylet 30 s to register; on a busy machine it may not
        try:
            cluster = Cluster(
                initialize_head=True,
                head_node_args={"num_cpus": 2, "include_dashboard": False, "object_store_memory": 100 * 2**20},
            )
            break
        except Exception:
            if attempt == 4:
                raise
    cluster.add_node(num_cpus=2, object_store_memory=100 * 2**20)
    cluster.wait_for_nodes()
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tasks below, without this module there
    ray.init(address=cluster.address, log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def four_calls_at_once(client: LLMClient) -> tuple[str, int, int]:
    """A Ray task: the client arrived pickled, its slots as their limits (the cluster's, here)."""

    async def calls() -> list:
        messages = [{"role": "user", "content": "next action?"}]
        return list(await asyncio.gather(*(client.complete(MODEL, messages) for _ in range(4))))

    answers = asyncio.run(calls())
    return ray.get_runtime_context().get_node_id(), os.getpid(), len(answers)


def test_workers_on_two_nodes_together_keep_to_the_providers_limit(cluster):
    with OpenAICompatibleServer(SLOW) as server:
        slots = ProviderSlots({provider_key(MODEL, server.base_url): 2}, default=8)
        client = LLMClient(api_base=server.base_url, concurrency=8, slots=slots)
        task = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(four_calls_at_once)
        ran = ray.get([task.remote(client) for _ in range(4)], timeout=240)

        assert sum(n for _, _, n in ran) == 16 and server.completions_served == 16
        assert len({node for node, _, _ in ran}) == 2, ran  # both nodes made calls
        assert len({pid for _, pid, _ in ran}) >= 2, ran  # limits per process would have let 2 each through
        assert server.max_in_flight == 2  # 16 wanted at once, from both nodes; the provider saw 2


def hold_a_slot_and_die(slots) -> None:
    """A Ray task that takes the cluster's only slot for at most 15 s, then dies without giving it back."""

    async def take() -> None:
        async with slots.slot("p", hold_s=15.0):
            os._exit(1)

    asyncio.run(take())


def take_the_slot(slots) -> str:
    async def take() -> str:
        async with slots.slot("p", hold_s=5.0):
            return "got it"

    return asyncio.run(take())


def test_a_slot_whose_holder_died_is_taken_back_when_its_lease_lapses(cluster):
    slots = ProviderSlots({"p": 1}, default=1)
    dying = ray.remote(max_retries=0, num_cpus=1)(hold_a_slot_and_die)
    with pytest.raises(ray.exceptions.RayError):
        ray.get(dying.remote(slots), timeout=120)
    held, most = ray.get(keeper({"p": 1}, 1).in_flight.remote("p"))
    assert (held, most) == (1, 1)  # the only slot is held by a dead worker: without the lease, held for ever
    assert ray.get(ray.remote(num_cpus=1)(take_the_slot).remote(slots), timeout=120) == "got it"
