"""Experiments as background jobs for the API: accepted runs go to worker threads (the event loop never waits
on a twin), finished samples and progress go to the store as they come (and their step decisions to the
decision export under <data dir>/experiments/<id>/), and on shutdown running jobs are asked to stop, which
leaves them "interrupted" and resumable. Checking and running an experiment is agent's
(agent.experiments.planning, agent.experiments.execution), shared with the CLI and the demo.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from agent.experiments.execution import ExperimentExecutor
from agent.experiments.planning import CheckedExperiment, ExperimentRejected, check_experiment
from agent.experiments.runner import BudgetExceeded, RunInterrupted
from agent.experiments.spec import ExperimentSpec
from agent.exports.experiment_export import ExperimentExport
from agent.exports.run_export import ExportFormatError
from service.container import Services, experiment_context
from service.jobs.experiment_store import ExperimentStore

log = logging.getLogger("twinsim.experiments")


class ExperimentJobs:
    """Background runs for the API: at most `workers` experiments at once, each on its own thread."""

    def __init__(self, services: Services, store: ExperimentStore, workers: int = 2) -> None:
        self.services = services
        self.store = store
        self.context = experiment_context(services)
        self.executor = ExperimentExecutor(self.context)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="experiment")
        self._stop = threading.Event()
        self._running: dict[str, Future] = {}
        self._lock = threading.Lock()

    def submit(self, checked: CheckedExperiment) -> str:
        spec = checked.prepared.spec
        experiment_id = self.store.create(
            spec.model_dump(mode="json", exclude_none=True), total=len(checked.prepared.units())
        )
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
        checked = check_experiment(self.context, spec)
        self.store.set_status(experiment_id, "queued")
        self._start(experiment_id, checked)

    def export_dir(self, experiment_id: str) -> Path:
        """Where an experiment's decision export lives: <data dir>/experiments/<id>/ (agent/exports)."""
        return self.services.settings.data_dir / "experiments" / experiment_id

    def is_active(self, experiment_id: str) -> bool:
        with self._lock:
            future = self._running.get(experiment_id)
            return future is not None and not future.done()

    def _start(self, experiment_id: str, checked: CheckedExperiment) -> None:
        with self._lock:
            # in a copy of the caller's context: the run reads and recalls as the tenant that started it
            self._running[experiment_id] = self._pool.submit(
                contextvars.copy_context().run, self._run, experiment_id, checked
            )

    def _run(self, experiment_id: str, checked: CheckedExperiment) -> None:
        store = self.store
        try:
            if self._stop.is_set():
                raise RunInterrupted("the service is stopping")
            store.set_status(experiment_id, "running")
            export = ExperimentExport(self.export_dir(experiment_id), checked.prepared, run_id=experiment_id)
            done = store.samples(experiment_id)
            results = self.executor.run(
                checked,
                done=done,
                on_samples=lambda batch: store.add_samples(experiment_id, batch),
                on_progress=lambda p: store.set_progress(experiment_id, p.done, p.total),
                stop=self._stop,
                export=export,
            )
            store.set_status(experiment_id, "done", results=results)
        except RunInterrupted as error:
            store.set_status(
                experiment_id, "interrupted", error=f"{error}; POST /experiments/{experiment_id}/resume continues it"
            )
        except (BudgetExceeded, ExportFormatError) as error:
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
