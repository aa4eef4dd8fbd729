"""Experiments as background jobs for the API, and the check-then-run steps the CLI shares with it.

`check_experiment` does everything that can fail on bad input (brain, model, personas, population, pages,
sizes, the cost estimate against the budget) before any work starts, so the API answers 4xx and the CLI exits
non-zero with the reason. `ExperimentJobs` runs accepted experiments on worker threads (the event loop never
waits on a twin), writes finished samples and progress to the store as it goes, and on shutdown asks running
jobs to stop, which leaves them "interrupted" and resumable.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from agent.brains.embedded import EmbeddedBrain
from agent.experiments.cost import check_budget, estimate_cost
from agent.experiments.results import experiment_results
from agent.experiments.runner import (
    EMBEDDED,
    BudgetExceeded,
    Executor,
    InProcessExecutor,
    PreparedExperiment,
    Progress,
    RunInterrupted,
    personas_from,
    prepare,
    run_experiment,
)
from agent.experiments.samples import Sample
from agent.experiments.spec import ExperimentSpec, SpecError
from agent.graph import TwinGraph
from personas.population import PopulationError
from service.container import Services, build_brains, build_llm_client
from service.jobs.experiment_store import ExperimentStore

log = logging.getLogger("twinsim.experiments")
LLM_BRAIN = "llm"


class ExperimentRejected(ValueError):
    """A spec that cannot run; `reason` is for the person who sent it."""


@dataclass
class CheckedExperiment:
    prepared: PreparedExperiment
    estimate: dict | None  # for LLM brains
    provider_check: str | None = None  # why the LLM provider failed its probe, when the spec allows falling back


def check_experiment(services: Services, spec: ExperimentSpec, *, base_dir: Path | None = None,
                     allow_paths: bool = False) -> CheckedExperiment:
    settings = services.settings
    if spec.brain not in services.graph.brains:
        raise ExperimentRejected(f"unknown brain '{spec.brain}'; available: {', '.join(services.graph.brains)}")
    model = spec.model or settings.llm_model
    if spec.brain == LLM_BRAIN and not model:
        raise ExperimentRejected("brain 'llm' needs a model: set `model` in the spec or TWINSIM_LLM_MODEL")
    try:
        pool = personas_from(services.store, spec.population.ids)
        prepared = prepare(spec, pool, services.store, base_dir=base_dir, allow_paths=allow_paths,
                           max_page_bytes=settings.max_page_bytes, page_limits=settings.page_limits,
                           allowed_hosts=settings.host_allow_list)
    except (PopulationError, SpecError) as error:
        raise ExperimentRejected(str(error)) from None
    estimate = None
    if spec.brain == LLM_BRAIN:
        estimate = estimate_cost(prepared, model)
        reason = check_budget(estimate, spec.budget_usd)
        if reason:
            raise ExperimentRejected(reason)
    # Last: the one paid call, only for a spec that every free check has accepted.
    provider_check = _probe(services, spec, model) if spec.brain == LLM_BRAIN else None
    return CheckedExperiment(prepared, estimate, provider_check)


def _probe(services: Services, spec: ExperimentSpec, model: str) -> str | None:
    """One call before any work: a dead provider is refused, unless the spec accepts the embedded fallback."""
    from agent.llm_probe import probe_provider_blocking

    failure = probe_provider_blocking(services.llm, model)
    if failure and not spec.allow_fallback:
        raise ExperimentRejected(f"the LLM provider for model '{model}' failed a probe call: {failure}. Check the key "
                                 "and TWINSIM_LLM_API_BASE, or set `allow_fallback: true` in the spec to let the "
                                 "embedded brain decide where the provider fails (counted in the results)")
    return failure


class ExperimentExecutor:
    """Runs a checked experiment with the right brain: the embedded one in bulk, others through the graph
    (LLM calls with the spec's concurrency and an on-disk response cache under the data dir)."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._embedded: EmbeddedBrain | None = None
        self._units: Executor | None = None
        self._lock = threading.Lock()

    def embedded(self) -> EmbeddedBrain:
        with self._lock:
            if self._embedded is None:
                self._embedded = EmbeddedBrain()
            return self._embedded

    def unit_executor(self) -> Executor:
        """Where embedded-brain units run (TWINSIM_EXECUTOR): here, or as Ray tasks on TWINSIM_RAY_ADDRESS."""
        with self._lock:
            if self._units is None:
                settings = self.services.settings
                if settings.executor == "ray":
                    from agent.ray_executor import RayExecutor

                    self._units = RayExecutor(settings.ray_address)
                else:
                    self._units = InProcessExecutor()
            return self._units

    def graph_for(self, spec: ExperimentSpec) -> TwinGraph:
        if spec.brain != LLM_BRAIN:
            return self.services.graph
        settings = self.services.settings.model_copy(update={"llm_concurrency": spec.concurrency})
        llm = build_llm_client(settings, cache_path=settings.data_dir / "experiments" / "llm_cache.sqlite")
        return TwinGraph(build_brains(settings, llm), memory=self.services.store)

    def run(self, checked: CheckedExperiment, *, done: list[Sample] = (), on_samples=None,
            on_progress: Callable[[Progress], None] | None = None, stop: threading.Event | None = None) -> dict:
        spec = checked.prepared.spec
        if spec.brain == EMBEDDED:
            outcome = run_experiment(checked.prepared, embedded=self.embedded(), done=done, on_samples=on_samples,
                                     on_progress=on_progress, stop=stop, executor=self.unit_executor(),
                                     graph=self.services.graph if spec.live_variants else None)  # live twins browse through it
        else:
            outcome = run_experiment(checked.prepared, graph=self.graph_for(spec), done=done, on_samples=on_samples,
                                     on_progress=on_progress, stop=stop)
        results = experiment_results(checked.prepared, outcome, embed=self.services.store.embedder.embed,
                                     estimate=checked.estimate)
        if checked.provider_check:
            results["cost"]["provider_check"] = checked.provider_check
        return results


class ExperimentJobs:
    """Background runs for the API: at most `workers` experiments at once, each on its own thread."""

    def __init__(self, services: Services, store: ExperimentStore, workers: int = 2) -> None:
        self.services = services
        self.store = store
        self.executor = ExperimentExecutor(services)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="experiment")
        self._stop = threading.Event()
        self._running: dict[str, Future] = {}
        self._lock = threading.Lock()

    def submit(self, checked: CheckedExperiment) -> str:
        spec = checked.prepared.spec
        experiment_id = self.store.create(spec.model_dump(mode="json", exclude_none=True),
                                          total=len(checked.prepared.units()))
        self._start(experiment_id, checked)
        return experiment_id

    def resume(self, experiment_id: str) -> None:
        """Continue an interrupted or failed run; its stored samples are skipped. Raises ExperimentRejected."""
        record = self.store.get(experiment_id)
        if record.status in ("queued", "running") and self.is_active(experiment_id):
            raise ExperimentRejected(f"experiment {experiment_id} is already {record.status}")
        if record.status == "done":
            raise ExperimentRejected(f"experiment {experiment_id} is done; nothing to resume")
        try:
            spec = ExperimentSpec.model_validate(record.spec)
        except ValueError as error:
            raise ExperimentRejected(f"the stored spec no longer validates: {error}") from None
        checked = check_experiment(self.services, spec)
        self.store.set_status(experiment_id, "queued")
        self._start(experiment_id, checked)

    def is_active(self, experiment_id: str) -> bool:
        with self._lock:
            future = self._running.get(experiment_id)
            return future is not None and not future.done()

    def _start(self, experiment_id: str, checked: CheckedExperiment) -> None:
        with self._lock:
            # in a copy of the caller's context: the run reads and recalls as the tenant that started it
            self._running[experiment_id] = self._pool.submit(contextvars.copy_context().run, self._run, experiment_id, checked)

    def _run(self, experiment_id: str, checked: CheckedExperiment) -> None:
        store = self.store
        try:
            if self._stop.is_set():
                raise RunInterrupted("the service is stopping")
            store.set_status(experiment_id, "running")
            done = store.samples(experiment_id)
            results = self.executor.run(
                checked, done=done,
                on_samples=lambda batch: store.add_samples(experiment_id, batch),
                on_progress=lambda p: store.set_progress(experiment_id, p.done, p.total),
                stop=self._stop,
            )
            store.set_status(experiment_id, "done", results=results)
        except RunInterrupted as error:
            store.set_status(experiment_id, "interrupted", error=f"{error}; POST /experiments/{experiment_id}/resume continues it")
        except BudgetExceeded as error:
            store.set_status(experiment_id, "failed", error=str(error))
        except Exception as error:  # a bug or a broken dependency: the record says so instead of staying "running"
            log.exception("experiment %s failed", experiment_id)
            store.set_status(experiment_id, "failed", error=f"{type(error).__name__}: {error}")

    def wait(self, experiment_id: str, timeout: float | None = None) -> None:
        with self._lock:
            future = self._running.get(experiment_id)
        if future is not None:
            future.result(timeout=timeout)

    def close(self) -> None:
        """Ask running experiments to stop (they become 'interrupted', resumable) and wait for the threads."""
        self._stop.set()
        self._pool.shutdown(wait=True, cancel_futures=False)


def start_experiment_jobs(services: Services) -> ExperimentJobs:
    """At service start: open the store under the data dir; a run the last process left unfinished is
    marked 'interrupted' (resume it with POST /experiments/{id}/resume; nothing resumes on its own, so a
    restart never spends LLM money unasked)."""
    store = ExperimentStore(services.settings.data_dir / "experiments.sqlite")
    interrupted = store.mark_interrupted()
    if interrupted:
        log.warning("experiments interrupted by the last shutdown: %s", ", ".join(interrupted))
    return ExperimentJobs(services, store)
