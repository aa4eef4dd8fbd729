"""An experiment's decision export (agent/exports): every variant page stored once before the run, every
finished sample's step decisions appended as the samples are handed out, the Parquet file at the end.

The CLI writes it into the run's --out directory, the API into <data dir>/experiments/<id>/. Its rows are
written before the samples they belong to are kept, so a stop between the two runs the unit again and its
rows are read once (the last copy). Samples resumed from a run made before decisions were exported have no
rows: `finish` counts them, so the caller can say so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agent.exports.decision_record import DecisionRecord
from agent.exports.decision_table import FORMAT_VERSION
from agent.exports.run_export import (
    DECISIONS_JSONL,
    DECISIONS_PARQUET,
    PAGES,
    RunExport,
)
from personas.persona import Persona


# What the export reads of an experiment, as protocols: agent.experiments hands its prepared run and samples in,
# and exports never import experiments back.
class StoredPage(Protocol):
    @property
    def simplified_html(self) -> str: ...
    @property
    def sha256(self) -> str: ...


class PreparedRun(Protocol):
    """agent.experiments.runner.PreparedExperiment: the population and every variant's pages."""

    @property
    def personas(self) -> Mapping[str, Persona]: ...
    @property
    def pages(self) -> Mapping[str, Sequence[StoredPage]]: ...


class FinishedSample(Protocol):
    """agent.experiments.samples.Sample: one twin's run on one variant, with every step's decision."""

    @property
    def variant(self) -> str: ...
    @property
    def persona_id(self) -> str: ...
    @property
    def instance(self) -> int: ...
    @property
    def decisions(self) -> list[DecisionRecord]: ...


def _sample_key(sample: FinishedSample) -> tuple[str, str, int]:
    return (sample.variant, sample.persona_id, sample.instance)


@dataclass(frozen=True)
class ExportSummary:
    path: Path  # decisions.parquet
    rows: int
    samples_without_rows: int  # resumed samples of a run from before the export existed

    def document(self) -> dict:
        """What results.json says of the export (file names only: where the run lives is the caller's)."""
        return {
            "format_version": FORMAT_VERSION,
            "rows": self.rows,
            "files": [DECISIONS_JSONL, self.path.name, PAGES + "/"],
            "samples_without_rows": self.samples_without_rows,
        }


class ExperimentExport:
    def __init__(self, directory: Path, prepared: PreparedRun, run_id: str, *, fresh: bool = False) -> None:
        """Raises agent.exports.run_export.ExportFormatError when the directory holds another export format."""
        self.export = RunExport(
            directory, run_id=run_id, run_kind="experiment", personas=prepared.personas, fresh=fresh
        )
        for pages in prepared.pages.values():
            for page in pages:
                self.export.store_page(page.simplified_html, page.sha256)

    def add(self, samples: Iterable[FinishedSample]) -> None:
        """The decisions of finished samples (hand these out before keeping the samples themselves)."""
        self.export.append(
            row
            for sample in samples
            for row in self.export.rows(
                sample.decisions, persona_id=sample.persona_id, variant=sample.variant, instance=sample.instance
            )
        )

    def finish(self, samples: Iterable[FinishedSample]) -> ExportSummary:
        """decisions.parquet with the rows of these samples (the run's, in full) and nothing else."""
        wanted = {_sample_key(s) for s in samples}
        rows = self.export.finish(keep=lambda row: (row["variant"], row["persona_id"], row["instance"]) in wanted)
        have = {(row["variant"], row["persona_id"], row["instance"]) for row in rows}
        return ExportSummary(
            path=self.export.directory / DECISIONS_PARQUET, rows=len(rows), samples_without_rows=len(wanted - have)
        )
