"""An experiment made ready to run: its units of work, their seeds, and everything they share, computed once.

Why apart from the run: preparing validates everything that can fail before any twin runs (pages, targets,
population, the prediction cap), and reads each page and recalls each persona's memories once, through the same
recall the graph makes (agent.memory_recall, its ablation checks included), so that thousands of units can then
run in bulk without repeating any of it. The unit of work is a pure function of (spec, persona, instance,
variant): the instance's seed comes from (spec seed, persona id, instance) only, so the same twin instance draws
with the same seed on every variant (the comparison is paired) and a re-run or a resumed run gives the same
samples.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent.allowed_hosts import HostAllowList
from agent.experiments.live import check_live_variants
from agent.experiments.pages import ResolvedPage, resolve_variants
from agent.experiments.samples import Sample
from agent.experiments.spec import ExperimentSpec, SpecError
from agent.experiments.targets import check_targets
from agent.memory_recall import MemorySource, Recall
from agent.page.read_page import DEFAULT_MAX_PAGE_BYTES
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits
from agent.predict_options import PredictOptions
from personas.memory_types import Memory
from personas.persona import Persona
from personas.population import segment_buckets, select_population

MEMORIES_K = 5


def unit_options(seed: int | None = None) -> PredictOptions:
    """How every experiment prediction chooses: sampled, seeded per instance and page, MEMORIES_K memories."""
    return PredictOptions(mode="sample", seed=seed, memories_k=MEMORIES_K)


@dataclass(frozen=True)
class WorkUnit:
    persona_id: str
    instance: int
    variant: str

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.variant, self.persona_id, self.instance)


def sample_key(sample: Sample) -> tuple[str, str, int]:
    return (sample.variant, sample.persona_id, sample.instance)


def _hash_int(*parts: object) -> int:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits: fits SQLite, JSON and numpy


def instance_seed(spec_seed: int, persona_id: str, instance: int) -> int:
    """The seed of one twin instance: the same on every variant, so the variants are compared on paired draws."""
    return _hash_int("instance", spec_seed, persona_id, instance)


def page_seed(seed: int, page_number: int) -> int:
    """The seed of one page of a variant's page sequence (the first page draws with the instance seed)."""
    return seed if page_number == 0 else _hash_int("step", seed, page_number)


@dataclass
class PreparedExperiment:
    """Everything the units share, computed once: the population, parsed pages, recalled memories, segments."""

    spec: ExperimentSpec
    personas: dict[str, Persona]
    pages: dict[str, list[ResolvedPage]]
    memories: dict[tuple[str, str], list[Memory]] = field(default_factory=dict)
    segments: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what could not be checked before the run (targets on live pages)
    allowed_hosts: HostAllowList | None = None  # live variants' browsers request only these

    def units(self) -> list[WorkUnit]:
        """In a fixed order: persona, instance, then variant (a twin instance's variants run side by side)."""
        return [
            WorkUnit(pid, i, v)
            for pid in sorted(self.personas)
            for i in range(self.spec.samples_per_persona)
            for v in self.spec.variant_names
        ]

    @property
    def predictions_needed(self) -> int:
        return self.spec.predictions_needed(len(self.personas))


def prepare(
    spec: ExperimentSpec,
    pool: Sequence[Persona],
    memory: MemorySource | None,
    *,
    base_dir: Path | None = None,
    allow_paths: bool = True,
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    pages: dict[str, list[ResolvedPage]] | None = None,
    page_limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
    allowed_hosts: HostAllowList | None = None,
) -> PreparedExperiment:
    """Validate everything that can fail before any twin runs; raises PopulationError or SpecError with the reason.
    With `allowed_hosts`, pages are fetched and live variants browsed only on those hosts."""
    if pages is None:
        pages = resolve_variants(
            spec,
            base_dir=base_dir,
            allow_paths=allow_paths,
            max_bytes=max_page_bytes,
            limits=page_limits,
            allowed=allowed_hosts,
        )
    notes = check_targets(
        spec,
        {
            name: {n for page in variant_pages for n in page.observation.by_name}
            for name, variant_pages in pages.items()
        },
    )
    check_live_variants(spec, allowed_hosts)
    personas = select_population(pool, spec.population)
    needed = spec.predictions_needed(len(personas))
    if needed > spec.max_predictions:
        raise SpecError(
            f"the spec needs up to {needed} predictions ({len(personas)} personas x {spec.samples_per_persona} "
            f"samples x pages); max_predictions is {spec.max_predictions}"
        )
    prepared = PreparedExperiment(
        spec=spec,
        personas={p.id: p for p in personas},
        pages=pages,
        segments={p.id: segment_buckets(p, spec.segments) for p in personas},
        notes=notes,
        allowed_hosts=allowed_hosts,
    )
    recall = Recall(memory, brains={})
    unique = {page.key: page for variant_pages in pages.values() for page in variant_pages}
    for persona in personas:
        for key, page in unique.items():
            request = recall.request(persona, page.observation, spec.history, unit_options(), spec.task)
            if request is not None:
                prepared.memories[(persona.id, key)] = recall(request)
    return prepared
