"""How far twins went on each variant: how many steps each run took and how it ended, for the report's paths.

A run is a path of steps (pages of a page sequence, or actions on a live site) ending in bought, left or neither
(the pages ran out, or the step limit). Counted per variant as (steps, ended) -> twins, in a fixed order.
"""

from __future__ import annotations

from collections import Counter

from agent.experiments.samples import Sample
from agent.experiments.themes import outcome_group


def step_paths(samples: list[Sample], variant_names: list[str]) -> dict[str, list[dict]]:
    """{variant: [{"steps": k, "ended": "bought" | "left" | "other", "twins": n}, ...]} sorted by steps, then ended."""
    counts: dict[str, Counter[tuple[int, str]]] = {name: Counter() for name in variant_names}
    for sample in samples:
        counts.setdefault(sample.variant, Counter())[(sample.steps, outcome_group(sample))] += 1
    return {
        name: [{"steps": steps, "ended": ended, "twins": n} for (steps, ended), n in sorted(counter.items())]
        for name, counter in counts.items()
    }
