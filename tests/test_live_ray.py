"""Live simulations on Ray (TWINSIM_EXECUTOR=ray): a real two-node cluster on this machine (ray.cluster_utils:
a head and a worker node, each its own raylet and worker processes) runs each twin's session as a task with its own
Chromium, recalling through the driver's store. The traces, funnel and orders equal the in-process run's; twins ran
on the worker node; a worker node killed mid-run loses no twin and doubles none; an address that does not answer
is a clear message and exit 2."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent.executors.ray_twins import RayTwins
from agent.executors.ray_units import RayExecutor
from agent.simulation import SimulationConfig, run_simulation
from tests.support.sample_twins import services_with_opera_personas

pytestmark = pytest.mark.integration
ray = pytest.importorskip("ray")
REPO = Path(__file__).resolve().parents[1]
TWINS, STEPS = 6, 5


class TwoNodes:
    """A head (one browser slot) and a worker node (two); `worker()` is the worker node, a new one when a test
    killed the last."""

    def __init__(self, cluster) -> None:
        self.cluster = cluster
        self._worker = None

    @property
    def address(self) -> str:
        return self.cluster.address

    def worker(self):
        if self._worker is None or self._worker not in self.cluster.worker_nodes:
            self._worker = self.cluster.add_node(num_cpus=2, resources={"chromium": 2}, object_store_memory=100 * 2**20)
            self.cluster.wait_for_nodes()
        return self._worker

    def kill(self, node) -> None:
        self.cluster.remove_node(node)  # its raylet and worker processes, Chromium with them, gone mid-session


@pytest.fixture(scope="module")
def cluster():
    """One Ray start for every test of the module."""
    from ray.cluster_utils import Cluster

    for attempt in range(5):  # Ray gives a raylet 30 s to register; on a machine busy with other work it may not
        try:
            cluster = Cluster(
                initialize_head=True,
                head_node_args={
                    "num_cpus": 1,
                    "resources": {"chromium": 1},
                    "include_dashboard": False,
                    "object_store_memory": 100 * 2**20,
                },
            )
            break
        except Exception:
            if attempt == 4:
                raise
    nodes = TwoNodes(cluster)
    nodes.worker()
    ray.init(address=cluster.address, log_to_driver=False)
    yield nodes
    ray.shutdown()
    cluster.shutdown()


SLOW = {"seconds": 0.0}  # how long the shop waits before each answer (the kill tests slow it down)


@pytest.fixture(scope="module")
def shop_url():
    """The demo shop, which the kill tests slow down so a session is still running when its node is killed: a worker
    keeps its Chromium between sessions (agent/browser/kept_browser.py), and a session on the quick demo shop can end
    between two looks for a busy node. The pages and traces are the same at any speed."""
    from service.demo_shop import create_shop_app
    from tests.support.live_server import serve

    app = create_shop_app()

    @app.middleware("http")
    async def slow(request, call_next):
        await asyncio.sleep(SLOW["seconds"])
        return await call_next(request)

    with serve(app) as url:
        yield url


@contextmanager
def slow_shop(seconds: float = 0.3):
    SLOW["seconds"] = seconds
    try:
        yield
    finally:
        SLOW["seconds"] = 0.0


@pytest.fixture(scope="module")
def twins(tmp_path_factory, opera_dir):
    return services_with_opera_personas(tmp_path_factory.mktemp("ray-live"), opera_dir, TWINS)


def simulate(twins, url: str, executor=None, on_trace=None):
    services, personas = twins
    config = SimulationConfig(url=url, persona_ids=[p.id for p in personas], max_steps=STEPS, seed=3, concurrency=2)
    return asyncio.run(run_simulation(config, personas, services.graph, on_trace=on_trace, executor=executor))


def signature(result) -> list:
    return [
        (
            t.persona_id,
            t.outcome,
            t.stages,
            t.final_url,
            [
                (
                    s.url,
                    s.action.model_dump_json(),
                    s.click_type,
                    s.rationale,
                    s.result_url,
                    s.seed,
                    s.page_sha256,
                    [m.id for m in s.memories],
                )
                for s in t.steps
            ],
        )
        for t in result.traces
    ]


@pytest.fixture(scope="module")
def here(twins, shop_url):
    result = simulate(twins, shop_url + "/")
    assert all(t.node is None for t in result.traces)
    assert sum(len(t.steps) for t in result.traces) > TWINS  # the twins browsed, not just opened the page
    return result


def test_a_live_simulation_on_a_two_node_cluster_equals_the_in_process_run(cluster, twins, shop_url, here):
    worker = cluster.worker()
    arrived = []
    there = simulate(twins, shop_url + "/", RayTwins(RayExecutor(cluster.address)), on_trace=arrived.append)

    assert signature(there) == signature(here)
    assert there.funnel.model_dump() == here.funnel.model_dump()
    assert any(m for t in there.traces for s in t.steps for m in s.memories)  # recalls crossed to the driver
    assert [t.persona_id for t in arrived] == [t.persona_id for t in here.traces]  # streamed back in order
    nodes = {t.node for t in there.traces}
    assert worker.node_id in nodes, nodes  # twins ran on the worker node


def test_a_worker_node_killed_mid_run_loses_no_twin_and_doubles_none(cluster, twins, shop_url, here):
    worker = cluster.worker()
    outcome: dict = {}

    def run() -> None:
        outcome["result"] = simulate(twins, shop_url + "/", RayTwins(RayExecutor(cluster.address)))

    with slow_shop():
        runner = threading.Thread(target=run)
        runner.start()
        _kill_when_busy(cluster, worker)
        runner.join(timeout=600)
    assert not runner.is_alive()

    there = outcome["result"]
    assert [t.persona_id for t in there.traces] == [t.persona_id for t in here.traces]  # none lost, none doubled
    assert signature(there) == signature(here)  # the killed sessions ran again from their start
    assert all(t.node != worker.node_id for t in there.traces)


def _kill_when_busy(cluster: TwoNodes, worker) -> None:
    """Kill the worker node once a session holds one of its browser slots."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not _running_on(worker.node_id):
        time.sleep(0.2)
    assert _running_on(worker.node_id), "no twin session started on the worker node"
    cluster.kill(worker)


def _running_on(node_id: str) -> bool:
    """A twin's session holds one of the node's browser slots while it runs."""
    from ray._private.state import available_resources_per_node

    free = available_resources_per_node().get(node_id)  # a resource all in use is left out of the node's dict
    return free is not None and free.get("chromium", 0) < 2


def test_an_unreachable_ray_address_fails_in_seconds_with_a_clear_message(tmp_path, shop_url):
    env = {
        **os.environ,
        "TWINSIM_DATA_DIR": str(tmp_path / "data"),
        "TWINSIM_EXECUTOR": "ray",
        "TWINSIM_RAY_ADDRESS": "127.0.0.1:9",
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli.main",
            "simulate",
            "--url",
            shop_url + "/",
            "--personas",
            "sam-chen",
            "--max-steps",
            "2",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Ray head at 127.0.0.1:9" in done.stderr and "does not answer" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


# ---- live A/B variants on the cluster ------------------------------------------------------------------------


def live_ab(twins, shop_url: str, **context) -> tuple[dict, list]:
    """A live A/B (the demo shop's `/` against `/?variant=b`) of three twins, through the path the CLI and the API
    share; `context`: where it runs (executor, ray_address). Returns the results and every sample handed out."""
    from dataclasses import replace

    from agent.experiments.execution import ExperimentExecutor
    from agent.experiments.planning import check_experiment
    from agent.experiments.spec import parse_spec
    from service.container import experiment_context

    services, personas = twins
    spec = parse_spec(
        {
            "name": "demo shop: sale banner, on Ray",
            "variants": [
                {"name": "A", "live_url": shop_url + "/", "max_steps": 3},
                {"name": "B", "live_url": shop_url + "/?variant=b", "max_steps": 3},
            ],
            "population": {"ids": [p.id for p in personas[:3]]},
            "samples_per_persona": 1,
            "targets": ["search_results"],
            "seed": 11,
        }
    )
    where = replace(experiment_context(services), **context)
    kept: list = []
    results = ExperimentExecutor(where).run(check_experiment(where, spec), on_samples=kept.extend)
    return results, kept


def samples_signature(samples: list) -> list:
    """Every sample as stored, and each step's decision: page, action, reason, the memories it drew on."""
    return sorted(
        (
            s.variant,
            s.persona_id,
            s.instance,
            s.model_dump_json(),
            [
                (d.url, d.page_sha256, d.action.model_dump_json(), d.rationale, [m.id for m in d.memories])
                for d in s.decisions
            ],
        )
        for s in samples
    )


@pytest.fixture(scope="module")
def ab_here(twins, shop_url):
    results, samples = live_ab(twins, shop_url)
    assert len(samples) == 3 * 2 and all(s.node is None for s in samples)
    assert any(s.steps > 1 for s in samples)  # the twins browsed the variants, not just opened them
    return results, samples


def test_a_live_ab_on_a_two_node_cluster_equals_the_in_process_run(cluster, twins, shop_url, ab_here):
    worker = cluster.worker()
    results_here, here = ab_here
    results, there = live_ab(twins, shop_url, executor="ray", ray_address=cluster.address)

    assert samples_signature(there) == samples_signature(here)
    assert any(m for s in there for d in s.decisions for m in d.memories)  # recalls crossed to the driver
    assert results["analysis"] == results_here["analysis"]
    assert results["visibility"] == results_here["visibility"]  # what the twins were shown came back too
    nodes = {s.node for s in there}
    assert None not in nodes and worker.node_id in nodes, nodes  # every unit on Ray, some on the worker node


def test_a_worker_node_killed_mid_ab_loses_no_unit_and_doubles_none(cluster, twins, shop_url, ab_here):
    worker = cluster.worker()
    outcome: dict = {}

    def run() -> None:
        outcome["run"] = live_ab(twins, shop_url, executor="ray", ray_address=cluster.address)

    with slow_shop():
        runner = threading.Thread(target=run)
        runner.start()
        _kill_when_busy(cluster, worker)
        runner.join(timeout=600)
    assert not runner.is_alive()

    results, there = outcome["run"]
    keys = [(s.variant, s.persona_id, s.instance) for s in there]
    assert sorted(keys) == sorted((s.variant, s.persona_id, s.instance) for s in ab_here[1])  # none lost
    assert len(set(keys)) == len(keys)  # none doubled
    assert samples_signature(there) == samples_signature(ab_here[1])  # the killed units ran again from their start
    assert all(s.node != worker.node_id for s in there)
    assert results["analysis"] == ab_here[0]["analysis"]
