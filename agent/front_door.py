"""What service/ may import from agent/, listed in one place: the modules the API, the CLI and the jobs build on.

Any other agent module is the agent's own business, free to move or change without service/ noticing;
tests/test_import_layers.py refuses a service import of a module not listed here, and a listed module that
service/ no longer imports (so the door never stays wider than what is used). Widening it is a decision to make
here, in review, not a side effect of an import line. Nothing here is imported at run time: it is a list.
"""

from __future__ import annotations

FRONT_DOOR = (
    # predicting: the one use case and its input (the page, the screenshot, the history, the task, the options),
    # the answer, and the page limits a service configures
    "agent.predict_use_case",
    "agent.prediction_input",
    "agent.page.read_page",
    "agent.page.shape",
    "agent.screenshots",
    "agent.history",
    "agent.tasks",
    "agent.predict_options",
    "agent.prediction",
    "agent.graph",
    "agent.sample_pages",
    # wiring one process: brains, the LLM client and its guards, settings' defaults, where data lives
    "agent.brains.base",
    "agent.brains.names",
    "agent.brains.registry",
    "agent.llm.answer_schema",
    "agent.llm.cache",
    "agent.llm.client",
    "agent.llm.offline_litellm",
    "agent.llm.provider_lock",
    "agent.llm.provider_slots",
    "agent.behaviour.params",
    "agent.allowed_hosts",
    "agent.opera_data",
    "agent.executors.ray_units",
    "agent.executors.ray_twins",
    # evaluating on recorded sessions (OPeRA, Multimodal-Mind2Web) and calibrating on them
    "agent.recorded_sessions",
    "agent.llm.opera_protocol",
    "agent.evaluation.runner",
    "agent.evaluation.mind2web_rows",
    "agent.evaluation.mind2web_runner",
    "agent.reporting.eval_report",
    "agent.reporting.mind2web_report",
    "agent.calibration.blas_kernel",
    "agent.calibration.calibrate",
    # experiments: spec, plan, run, samples, report, decision export
    "agent.experiments.context",
    "agent.experiments.spec",
    "agent.experiments.planning",
    "agent.experiments.execution",
    "agent.experiments.runner",
    "agent.experiments.samples",
    "agent.reporting.experiment_report",
    "agent.exports.experiment_export",
    "agent.exports.run_export",
    "agent.exports.decision_lookup",
    # live simulations in Chromium
    "agent.simulation",
    "agent.simulation.checkout_details",
    "agent.browser.chromium",
    "agent.simulation.config",
    "agent.simulation.funnel",
    "agent.simulation.output",
    "agent.simulation.run",
    "agent.simulation.start_page",
    "agent.simulation.trace",
    "agent.browser.kept_browser",  # the CLI starts its run's browser while it loads the graph and store
    # after a run: comparing runs, interviewing a twin
    "agent.comparison.run_comparison",
    "agent.comparison.comparison_error",
    "agent.comparison.run_files",
    "agent.reporting.compare_report",
    "agent.interview",
)
