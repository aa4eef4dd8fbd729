"""Checking an experiment before any work starts, for the API, the CLI and the demo alike.

`check_experiment` does everything that can fail on bad input (brain, model, personas, population, pages,
sizes, the cost estimate against the budget) before any twin runs, so the API answers 4xx and the CLI exits
non-zero with the reason; the one paid call (the provider probe) comes last, after every free check.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.brains.names import BrainName
from agent.experiments.context import ExperimentContext
from agent.experiments.cost import check_budget, estimate_cost
from agent.experiments.prepared import PreparedExperiment, prepare
from agent.experiments.runner import personas_from
from agent.experiments.spec import ExperimentSpec, SpecError
from personas.population import PopulationError


class ExperimentRejected(ValueError):
    """A spec that cannot run; the message is for the person who sent it."""


@dataclass
class CheckedExperiment:
    prepared: PreparedExperiment
    estimate: dict | None  # for LLM brains
    provider_check: str | None = None  # why the LLM provider failed its probe, when the spec allows falling back


def check_experiment(
    context: ExperimentContext, spec: ExperimentSpec, *, base_dir: Path | None = None, allow_paths: bool = False
) -> CheckedExperiment:
    model = spec.model or context.default_model
    if spec.brain == BrainName.LLM and not model:
        raise ExperimentRejected("brain 'llm' needs a model: set `model` in the spec or TWINSIM_LLM_MODEL")
    try:
        pool = personas_from(context.store, spec.population.ids)
        prepared = prepare(
            spec,
            pool,
            context.store,
            base_dir=base_dir,
            allow_paths=allow_paths,
            max_page_bytes=context.max_page_bytes,
            page_limits=context.page_limits,
            allowed_hosts=context.allowed_hosts,
        )
    except (PopulationError, SpecError) as error:
        raise ExperimentRejected(str(error)) from None
    estimate = None
    if spec.brain == BrainName.LLM:
        estimate = estimate_cost(prepared, model)
        reason = check_budget(estimate, spec.budget_usd)
        if reason:
            raise ExperimentRejected(reason)
    # Last: the one paid call, only for a spec that every free check has accepted.
    provider_check = _probe(context, spec, model) if spec.brain == BrainName.LLM and model else None
    return CheckedExperiment(prepared, estimate, provider_check)


def _probe(context: ExperimentContext, spec: ExperimentSpec, model: str) -> str | None:
    """One call before any work: a dead provider is refused, unless the spec accepts the embedded fallback."""
    from agent.llm.probe import probe_provider_blocking

    assert context.llm is not None  # the context of an LLM run carries its client
    failure = probe_provider_blocking(context.llm, model)
    if failure and not spec.allow_fallback:
        raise ExperimentRejected(
            f"the LLM provider for model '{model}' failed a probe call: {failure}. Check the key "
            "and TWINSIM_LLM_API_BASE, or set `allow_fallback: true` in the spec to let the "
            "embedded brain decide where the provider fails (counted in the results)"
        )
    return failure
