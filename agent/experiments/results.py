"""The result document of a finished experiment: the spec, its status, the statistics, the themes, the cost.

One shape for results.json (CLI), the stored results (API) and the HTML report (render_report reads it).
Samples enter in a canonical order and every seed comes from the spec, so the same spec gives the same document
(apart from `run`, which records wall time).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agent.experiments.flips import persona_flips
from agent.experiments.prepared import PreparedExperiment
from agent.experiments.runner import RunOutcome
from agent.experiments.samples import Sample
from agent.experiments.spec import ExperimentSpec
from agent.experiments.statistics import analyse
from agent.experiments.step_paths import step_paths
from agent.experiments.themes import rationale_themes
from agent.experiments.visibility import live_visibility, visibility
from agent.tasks import task_success
from personas.persona import Persona
from personas.persona_card import persona_card

Embed = Callable[[list[str]], np.ndarray]
FIRST_CARDS = 24  # cards for the first personas by id, besides those the report names (flips, quotes)
MAX_CARDS = 300  # a population of thousands carries the cards a reader can look up, not all of them


def spec_document(spec: ExperimentSpec, population_size: int | None = None) -> dict:
    document = spec.model_dump(mode="json", exclude_none=True)
    if population_size is not None:
        document["population_size"] = population_size
    return document


def cost_document(prepared: PreparedExperiment, outcome: RunOutcome, estimate: dict | None) -> dict:
    usage = outcome.usage
    cost = {
        "brain": prepared.spec.brain,
        "predictions": sum(s.steps for s in outcome.samples),
        "samples": len(outcome.samples),
        "resumed_samples": outcome.resumed,
        "llm_calls": usage.calls,
        "fallbacks": sum(s.fallbacks for s in outcome.samples),  # decisions the embedded brain made instead
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "usd": round(usage.cost_usd, 6),
        "wall_s": round(outcome.wall_s, 3),
    }
    if estimate is not None:
        cost["estimate"] = estimate
        cost["estimated_usd"] = estimate["usd"]
    if prepared.spec.budget_usd is not None:
        cost["budget_usd"] = prepared.spec.budget_usd
    return cost


def experiment_results(
    prepared: PreparedExperiment, outcome: RunOutcome, *, embed: Embed | None, estimate: dict | None = None
) -> dict:
    spec = prepared.spec
    samples: list[Sample] = outcome.samples
    analysis = analyse(samples, spec.variant_names, targets=spec.targets, seed=spec.seed)
    themes = rationale_themes(samples, embed, seed=spec.seed) if embed is not None else {}
    flips = persona_flips(samples, spec.variant_names)
    return {
        "spec": spec_document(spec, len(prepared.personas)),
        "status": "done",
        "analysis": analysis,
        "themes": themes,
        "cost": cost_document(prepared, outcome, estimate),
        "visibility": variant_visibility(prepared, outcome),
        "task": task_document(spec, samples),
        "flips": flips,
        "paths": step_paths(samples, spec.variant_names),
        "personas": persona_cards(prepared.personas, featured_personas(flips, themes)),
    }


def featured_personas(flips: dict, themes: dict) -> list[str]:
    """The personas a report names: those who said a theme's quotes, then those who changed behaviour most."""
    quoted = [
        pid
        for groups in (themes.get("variants") or {}).values()
        for summary in groups.values()
        for theme in summary.get("themes") or []
        for quote in theme.get("quotes") or []
        for pid in quote["persona_ids"]
    ]
    flipped = [row["persona_id"] for comparison in flips["comparisons"] for row in comparison["listed"]]
    return list(dict.fromkeys(quoted + flipped))


def persona_cards(
    personas: dict[str, Persona], featured: list[str], first: int = FIRST_CARDS, cap: int = MAX_CARDS
) -> dict[str, dict]:
    """Cards for the featured personas and the first ones by id, at most `cap`, in that order."""
    chosen = list(dict.fromkeys([pid for pid in featured if pid in personas] + sorted(personas)[:first]))[:cap]
    return {pid: persona_card(personas[pid]) for pid in chosen}


def variant_visibility(prepared: PreparedExperiment, outcome: RunOutcome) -> dict:
    """Could the twins see the difference? Page variants: from their pages, before any twin runs; live variants:
    from what the twins were shown while they browsed (agent/experiments/visibility.py)."""
    spec = prepared.spec
    if spec.live_variants and set(spec.live_variants) == set(spec.variant_names):
        return live_visibility(outcome.live_sights, spec.variant_names, spec.brain)
    return visibility(prepared.pages, spec.variant_names, spec.brain)


def task_document(spec: ExperimentSpec, samples: list[Sample]) -> dict | None:
    """Per variant: who reached the task, per persona (over its instances) and overall (agent.tasks.task_success)."""
    if spec.task is None:
        return None
    by_variant: dict[str, dict[str, list[bool | None]]] = {name: {} for name in spec.variant_names}
    for sample in samples:
        by_variant.setdefault(sample.variant, {}).setdefault(sample.persona_id, []).append(sample.task_reached)
    return {
        "goal": spec.task.goal,
        "success": spec.task.success.model_dump(exclude_none=True) if spec.task.success else None,
        "variants": {name: task_success(spec.task.goal, runs) for name, runs in by_variant.items()},
    }
