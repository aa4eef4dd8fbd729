"""A run's decision export on disk, beside its results: decisions.jsonl, decisions.parquet and pages/.

    DIR/decisions.jsonl      one row per decision (decision_table.py), appended as the run goes, so a stopped
                             run keeps what it finished and a resume adds to it
    DIR/pages/<sha256>.html  each distinct page the twins read, stored once per run
    DIR/decisions.parquet    the same rows, written when the run finishes, for analysts' tools

A row written twice (a unit that ran again after a stop before its sample was kept) is read once: the last
copy wins; and `finish` rewrites decisions.jsonl with exactly the rows of decisions.parquet, so after a kill -9
and a resume both files hold each decision once. A line cut short by a stop is dropped when the export is opened
again, so the next row starts on a line of its own instead of being glued to it. Rows of another export format are
never mixed in: opening such a directory to add to it raises
ExportFormatError, which says what it holds and what to do.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pyarrow.parquet as pq

from agent.exports.decision_record import DecisionRecord, page_bytes, page_sha256
from agent.exports.decision_table import (
    FORMAT_VERSION,
    decision_row,
    persona_columns,
    to_table,
)
from personas.persona import Persona

DECISIONS_JSONL = "decisions.jsonl"
DECISIONS_PARQUET = "decisions.parquet"
PAGES = "pages"
SHA256 = re.compile(r"^[0-9a-f]{64}$")


class ExportFormatError(ValueError):
    """The directory holds decisions of an export format this version does not write."""


class ExportMissing(LookupError):
    """The run has no decision export (it ran before decisions were exported, or has not started)."""


def read_rows(directory: Path, persona_id: str | None = None) -> list[dict]:
    """Every decision row of a run (with `persona_id`, that persona's only), each once (the last copy of a
    repeated one), in the order written."""
    path = Path(directory) / DECISIONS_JSONL
    if not path.exists():
        raise ExportMissing(f"{directory} has no {DECISIONS_JSONL}")
    rows: dict[str, dict] = {}
    # persona ids are plain (personas/persona.py), so a row's id is written as is: skip other rows unparsed
    marker = json.dumps({"persona_id": persona_id})[1:-1] if persona_id is not None else None
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if marker is not None and marker not in line:
                continue
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a line cut short by a stop: its unit ran again
            if (
                not isinstance(row, dict)
                or "decision_id" not in row
                or (persona_id is not None and row.get("persona_id") != persona_id)
            ):
                continue
            if row.get("format_version") != FORMAT_VERSION:
                raise ExportFormatError(
                    f"{path} holds decisions of export format {row.get('format_version')}; this "
                    f"version reads and writes format {FORMAT_VERSION} only"
                )
            rows.pop(row["decision_id"], None)
            rows[row["decision_id"]] = row
    return list(rows.values())


def page_path(directory: Path, sha256: str) -> Path:
    """Where a stored page is; a name that is not a SHA-256 is refused (it could point anywhere)."""
    if not SHA256.match(sha256 or ""):
        raise ValueError(f"not a page hash: {sha256!r}")
    return Path(directory) / PAGES / f"{sha256}.html"


def stored_page_html(directory: Path, sha256: str) -> str | None:
    """A stored page's HTML, or None when it is not stored."""
    path = page_path(directory, sha256)
    return path.read_bytes().decode("utf-8", "replace") if path.exists() else None


class RunExport:
    """Writes one run's export. `personas` gives each row who the twin is (persona_id -> Persona)."""

    def __init__(
        self, directory: Path, *, run_id: str, run_kind: str, personas: Mapping[str, Persona], fresh: bool = False
    ) -> None:
        self.directory = Path(directory)
        self.run_id, self.run_kind = run_id, run_kind
        self.personas = personas
        self.jsonl = self.directory / DECISIONS_JSONL
        self.pages = self.directory / PAGES
        if fresh:
            for path in (self.jsonl, self.directory / DECISIONS_PARQUET):
                path.unlink(missing_ok=True)
            shutil.rmtree(self.pages, ignore_errors=True)
        self.pages.mkdir(parents=True, exist_ok=True)
        self._drop_cut_line()
        self._check_format()
        self._stored = {path.stem for path in self.pages.glob("*.html")}
        self._people: dict[str, dict] = {}

    def _drop_cut_line(self) -> None:
        """Truncate a last line a stop cut short (no newline): appended to, it would spoil the next row too."""
        if not self.jsonl.exists():
            return
        with self.jsonl.open("rb+") as handle:
            size = handle.seek(0, 2)
            if size == 0:
                return
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            end = size
            while end > 0:  # back to the last newline, a block at a time
                start = max(0, end - 65536)
                handle.seek(start)
                at = handle.read(end - start).rfind(b"\n")
                if at >= 0:
                    handle.truncate(start + at + 1)
                    return
                end = start
            handle.truncate(0)

    def _check_format(self) -> None:
        if not self.jsonl.exists():
            return
        with self.jsonl.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    version = json.loads(line).get("format_version")
                except (ValueError, AttributeError):
                    continue
                if version != FORMAT_VERSION:
                    raise ExportFormatError(
                        f"{self.jsonl} holds decisions of export format {version}; this version "
                        f"writes format {FORMAT_VERSION} and will not mix the two: start the "
                        "run afresh, or in another directory"
                    )
                return

    def store_page(self, html: str, sha256: str | None = None) -> str:
        """Store a page once (by its content hash); returns the hash."""
        sha256 = sha256 or page_sha256(html)
        if sha256 not in self._stored:
            path = page_path(self.directory, sha256)
            temporary = path.with_suffix(".part")
            temporary.write_bytes(page_bytes(html))
            temporary.replace(path)  # a stop mid-write leaves no half page under the final name
            self._stored.add(sha256)
        return sha256

    def _person(self, persona_id: str) -> dict:
        if persona_id not in self._people:
            self._people[persona_id] = persona_columns(self.personas.get(persona_id), persona_id)
        return self._people[persona_id]

    def rows(
        self, records: list[DecisionRecord], *, persona_id: str, variant: str | None = None, instance: int | None = None
    ) -> list[dict]:
        """The rows of one twin run's decisions; pages carried by a record are stored on the way."""
        rows = []
        for position, record in enumerate(records):
            if record.page_html is not None:
                self.store_page(record.page_html, record.page_sha256)
            rows.append(
                decision_row(
                    record,
                    run_id=self.run_id,
                    run_kind=self.run_kind,
                    person=self._person(persona_id),
                    variant=variant,
                    instance=instance,
                    last_step=position == len(records) - 1,
                )
            )
        return rows

    def append(self, rows: Iterable[dict]) -> None:
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        if text:
            with self.jsonl.open("a", encoding="utf-8") as handle:
                handle.write(text)

    def finish(self, keep: Callable[[dict], bool] | None = None) -> list[dict]:
        """Write decisions.parquet from every row so far (with `keep(row)`, only the rows it keeps) and return
        them. Written to a temporary name first, so a reader never sees half a file."""
        rows = read_rows(self.directory) if self.jsonl.exists() else []
        if keep is not None:
            rows = [row for row in rows if keep(row)]
        target = self.directory / DECISIONS_PARQUET
        temporary = target.with_suffix(".parquet.part")
        pq.write_table(to_table(rows), temporary)
        temporary.replace(target)
        lines = self.jsonl.with_suffix(".jsonl.part")  # the same rows, each once: a resume's repeats are gone
        lines.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
        lines.replace(self.jsonl)
        return rows
