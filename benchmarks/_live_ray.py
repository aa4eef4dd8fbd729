"""The same live simulation in process and on a local Ray cluster started here (a head and a worker node on this
machine, ray.cluster_utils), one after the other: seconds each, whether traces and funnel are identical, the
overhead per twin, and which nodes ran the sessions. Prints one JSON object. Run by benchmarks/live_speed.py --ray:
python _live_ray.py DATA_DIR URL IDS STEPS SEED
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path


def signature(result) -> dict:
    """Traces and funnel as they must be identical (agent/simulation/comparable.py: not timings or the Ray node)."""
    from agent.simulation.comparable import comparable_run

    return comparable_run(result.model_dump(mode="json"))


def main() -> None:
    data_dir, url, ids, steps, seed = sys.argv[1:6]
    import ray
    from ray.cluster_utils import Cluster

    from agent.executors.ray_twins import RayTwins
    from agent.executors.ray_units import RayExecutor
    from agent.simulation import SimulationConfig, run_simulation
    from service.container import build_services
    from service.settings import Settings

    services = build_services(Settings(data_dir=Path(data_dir)), warm=True)
    config = SimulationConfig(url=url, persona_ids=ids.split(","), max_steps=int(steps), seed=int(seed))
    personas = [services.store.get_persona(pid) for pid in config.persona_ids]
    started = time.perf_counter()
    here = asyncio.run(run_simulation(config, personas, services.graph))
    here_s = time.perf_counter() - started

    slots = config.concurrency
    started = time.perf_counter()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "include_dashboard": False, "object_store_memory": 200 * 2**20},
    )
    worker = cluster.add_node(
        num_cpus=os.cpu_count() or 1, resources={"chromium": slots}, object_store_memory=200 * 2**20
    )
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    cluster_start_s = time.perf_counter() - started
    try:
        started = time.perf_counter()
        there = asyncio.run(
            run_simulation(config, personas, services.graph, executor=RayTwins(RayExecutor(cluster.address)))
        )
        there_s = time.perf_counter() - started
    finally:
        ray.shutdown()
        cluster.shutdown()
    taken = sum(len(t.steps) for t in here.traces)
    print(
        json.dumps(
            {
                "twins": len(personas),
                "steps": taken,
                "browser_slots": slots,
                "in_process_seconds": round(here_s, 2),
                "ray_seconds": round(there_s, 2),
                "ray_cluster_start_seconds": round(cluster_start_s, 2),
                "in_process_steps_per_second": round(taken / here_s, 3),
                "ray_steps_per_second": round(taken / there_s, 3),
                "overhead_per_twin_seconds": round((there_s - here_s) / len(personas), 2),
                "identical_traces_and_funnel": signature(here) == signature(there)
                and here.funnel.model_dump() == there.funnel.model_dump(),
                "ran_on_worker_node": sum(t.node == worker.node_id for t in there.traces),
            }
        )
    )


if __name__ == "__main__":
    main()
