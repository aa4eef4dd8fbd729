"""Live variants of an experiment on a Ray cluster: each live unit (one twin instance on one live variant) is one
Ray task on a worker, in a context of the Chromium the worker keeps, the same session as in process
(agent.experiments.live.browse).

Why the samples equal the in-process run's: a unit's session is a function of its persona, its instance seed, the
variant and the site, and the worker runs that very function with the same brains; its recalls are answered by
the driver's store through the recall broker of agent/executors/ray_twins.py, as a live simulation's are. A worker
(or its node) that dies takes only the units it was running; Ray runs them again elsewhere (max_retries), and the
driver, which only takes a task's finished result, neither loses nor doubles a sample. Each sample says which Ray
node ran it (Sample.node), not kept in the sample's JSON.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from agent.allowed_hosts import HostAllowList
from agent.executors.ray_twins import (
    TASK_RETRIES,
    BrokeredMemory,
    recall_broker,
    session_resources,
    sessions_in_flight,
)
from agent.executors.ray_units import RayExecutor
from agent.experiments.live import browse, trace_to_sample
from agent.experiments.prepared import PreparedExperiment, WorkUnit, instance_seed
from agent.experiments.samples import Sample
from agent.experiments.spec import ExperimentSpec, VariantSpec
from agent.experiments.visibility import Sight
from agent.graph import TwinGraph
from agent.simulation.trace import TwinTrace
from agent.usage import Usage
from personas.persona import Persona


def browse_unit_on_worker(
    brains: dict,
    broker: Any,
    persona: Persona,
    variant: VariantSpec,
    spec: ExperimentSpec,
    seed: int,
    allowed: HostAllowList | None,
) -> tuple[TwinTrace, Usage, list[Sight]]:
    """One live unit on this worker, in a fresh context of the Chromium the worker process keeps
    (agent/browser/kept_browser.py): the trace (which node ran it), its cost and what the twin was shown."""
    import ray

    from agent.browser.kept_browser import KEPT

    graph = TwinGraph(brains, memory=BrokeredMemory(broker))
    trace, usage, sights = KEPT.run(
        lambda browser: browse(browser, graph, persona, variant, spec, seed, allowed), pictures=True, allowed=allowed
    )
    trace.node = ray.get_runtime_context().get_node_id()
    return trace, usage, sights


@dataclass
class LiveUnitsOnRay:
    """`await run(unit)` runs a live unit as a Ray task and gives its sample and cost; `in_flight`: how many to
    keep submitted at once (the runner's concurrency for live units)."""

    prepared: PreparedExperiment
    remote: Any  # browse_unit_on_worker as a Ray remote function
    brains: Any  # the brains, stored once in the object store
    broker: Any
    in_flight: int
    cancel: Any  # ray.cancel

    async def run(self, unit: WorkUnit, sights: dict | None = None) -> tuple[Sample, Usage]:
        spec = self.prepared.spec
        ref = self.remote.remote(
            self.brains,
            self.broker,
            self.prepared.personas[unit.persona_id],
            spec.live_variants[unit.variant],
            spec,
            instance_seed(spec.seed, unit.persona_id, unit.instance),
            self.prepared.allowed_hosts,
        )
        try:
            trace, usage, shown = await ref
        except asyncio.CancelledError:  # the run stopped or failed: leave no session running for nobody
            self.cancel(ref)
            raise
        if sights is not None:
            sights[unit.key] = shown
        sample = trace_to_sample(
            trace,
            variant=unit.variant,
            instance=unit.instance,
            targets=spec.targets,
            segments=self.prepared.segments.get(unit.persona_id, {}),
        )
        sample.node = trace.node
        return sample, usage


@asynccontextmanager
async def live_units_on_ray(
    executor: RayExecutor, prepared: PreparedExperiment, graph: TwinGraph
) -> AsyncIterator[LiveUnitsOnRay]:
    """Connect (an address that does not answer fails in seconds: RayUnavailable), start the recall broker and
    share the brains, for the length of the live part of a run."""
    ray = executor.connect()
    remote = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False, **session_resources(ray))(
        browse_unit_on_worker
    )
    with recall_broker(ray, graph) as broker:
        yield LiveUnitsOnRay(
            prepared=prepared,
            remote=remote,
            brains=ray.put(graph.brains_for(str(prepared.spec.brain))),
            broker=broker,
            in_flight=sessions_in_flight(ray),
            cancel=ray.cancel,
        )
