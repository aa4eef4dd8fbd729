"""Running a checked experiment with the brains this process serves.

The runner decides how each unit runs (the embedded brain in bulk, other brains through the graph); this
class only picks the graph (the served one, or for the LLM brain one whose calls run the spec's concurrency
at a time) and where bulk units run (here, or as Ray tasks), then turns the samples into results.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from agent.brains.names import BrainName
from agent.executors.units import InProcessExecutor, UnitExecutor
from agent.experiments.context import ExperimentContext
from agent.experiments.planning import CheckedExperiment
from agent.experiments.results import experiment_results
from agent.experiments.runner import Progress, run_experiment
from agent.experiments.samples import Sample
from agent.exports.experiment_export import ExperimentExport
from agent.graph import TwinGraph


class ExperimentExecutor:
    def __init__(self, context: ExperimentContext) -> None:
        self.context = context
        self._units: UnitExecutor | None = None
        self._lock = threading.Lock()

    def unit_executor(self) -> UnitExecutor:
        """Where embedded-brain units run (TWINSIM_EXECUTOR): here, or as Ray tasks on TWINSIM_RAY_ADDRESS."""
        with self._lock:
            if self._units is None:
                if self.context.executor == "ray":
                    from agent.executors.ray_units import RayExecutor

                    self._units = RayExecutor(self.context.ray_address)
                else:
                    self._units = InProcessExecutor()
            return self._units

    def graph_for(self, checked: CheckedExperiment) -> TwinGraph:
        spec = checked.prepared.spec
        if spec.brain == BrainName.LLM and self.context.llm_graph is not None:
            return self.context.llm_graph(spec.concurrency)
        return self.context.graph

    def run(
        self,
        checked: CheckedExperiment,
        *,
        done: Sequence[Sample] = (),
        on_samples: Callable[[list[Sample]], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        stop: threading.Event | None = None,
        export: ExperimentExport | None = None,
    ) -> dict:
        """With `export`, each batch's decisions are exported before `on_samples` keeps the samples, and the
        results say what the export holds (`decisions`)."""
        handler = on_samples
        if export is not None:

            def handler(batch: list[Sample]) -> None:
                export.add(batch)
                if on_samples is not None:
                    on_samples(batch)

        outcome = run_experiment(
            checked.prepared,
            graph=self.graph_for(checked),
            done=done,
            on_samples=handler,
            on_progress=on_progress,
            stop=stop,
            executor=self.unit_executor(),
        )
        results = experiment_results(
            checked.prepared, outcome, embed=self.context.store.embedder.embed, estimate=checked.estimate
        )
        if checked.provider_check:
            results["cost"]["provider_check"] = checked.provider_check
        if export is not None:
            results["decisions"] = export.finish(outcome.samples).document()
        return results
