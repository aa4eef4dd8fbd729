"""Rows of a table file in any of the formats OPeRA tables come in: parquet (a file or a directory of them),
CSV, JSONL or a JSON array.

One reader for the action table (evaluation, calibration) and the user table (persona import), so a file
that reads for one reads for the other, with the same errors. It lives here, the lowest layer that reads
tables. Values stay as the format holds them: text in CSV, JSON values in JSON and JSONL, Python values in
parquet (None for a missing cell, datetimes, dicts for structs). OPeRA: Wang et al. 2025, arXiv
2506.05606, CC-BY-4.0 (its release ships `OPeRA_filtered/{action,user}/...` as parquet).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TABLE_FORMATS = "parquet (a file or a directory of them), CSV, JSONL or a JSON array"

Row = dict[str, Any]


class TableReadError(ValueError):
    """A table file that cannot be read: why, which file, and which line when one is to blame."""

    def __init__(self, reason: str, *, path: str | Path, location: str | None = None) -> None:
        self.reason = reason
        self.path = str(path)
        self.location = location
        super().__init__(": ".join(part for part in (self.path, location, reason) if part))


@dataclass(frozen=True)
class TablePart:
    """One file of a table. `rows` yields (where the row is: "row 3 (line 5)", "line 2", "row 4"; the row).

    `columns` is None for JSON and JSONL, whose rows each carry their own keys; parquet and CSV rows are
    read only when `rows` is iterated, so the columns of every file can be checked first.
    """

    path: Path
    columns: tuple[str, ...] | None
    rows: Iterable[tuple[str, Row]]


def is_parquet(path: Path) -> bool:
    """Parquet is the one format that can be read in part (some columns, some rows)."""
    return path.is_dir() or path.suffix.lower() == ".parquet"


def read_table(
    path: str | Path,
    *,
    columns: Collection[str] | None = None,
    keep: tuple[str, Collection[Any]] | None = None,
    exclude: Collection[str] = (),
) -> Iterator[TablePart]:
    """The parts of a table: one per parquet file of a directory (sorted), else the file itself.

    `columns`, `exclude` (columns not to read: a release's screenshots) and `keep` (a column and the values whose
    rows to keep) narrow a parquet read; the other formats always give every column and row, and their callers
    filter as they read.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if not (is_parquet(path) or suffix in (".csv", ".jsonl", ".json")):
        raise TableReadError(f"unsupported format {suffix or '(none)'!r}; use {TABLE_FORMATS}", path=path)
    if not path.exists():
        raise TableReadError("no such file or directory", path=path)
    if is_parquet(path):
        for file in parquet_files(path):
            yield _parquet_part(file, columns, keep, exclude)
    elif suffix == ".csv":
        yield _csv_part(path)
    elif suffix == ".jsonl":
        yield TablePart(path, None, [(f"line {number}", row) for number, row in iter_jsonl(path)])
    else:
        yield TablePart(path, None, _json_array_rows(path))


def parquet_files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    files = sorted(path.rglob("*.parquet"))
    if not files:
        raise TableReadError("no *.parquet files in this directory", path=path)
    return files


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Row]]:
    """(line number, object) for every non-blank line; a line that is not a JSON object is an error."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise TableReadError(
                        f"not valid JSON ({error.msg})", path=path, location=f"line {number}"
                    ) from None
                if not isinstance(row, dict):
                    raise TableReadError(
                        f"expected a JSON object, got {type(row).__name__}", path=path, location=f"line {number}"
                    )
                yield number, row
    except (OSError, UnicodeDecodeError) as error:
        raise TableReadError(f"cannot read the file ({error})", path=path) from error


def _json_array_rows(path: Path) -> list[tuple[str, Row]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as error:
        raise TableReadError(f"not valid JSON ({error.msg})", path=path, location=f"line {error.lineno}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise TableReadError(f"cannot read the file ({error})", path=path) from error
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise TableReadError("expected a JSON array of objects (one per row)", path=path)
    return [(f"row {number}", row) for number, row in enumerate(data, start=1)]


def _parquet_part(
    file: Path, columns: Collection[str] | None, keep: tuple[str, Collection[Any]] | None, exclude: Collection[str] = ()
) -> TablePart:
    import pyarrow.parquet as pq

    try:
        names = tuple(pq.read_schema(file).names)
    except Exception as error:  # pyarrow raises several types for unreadable files
        raise TableReadError(f"not a readable parquet file ({error})", path=file) from error
    if exclude and any(name in exclude for name in names):
        columns = [name for name in (columns if columns is not None else names) if name not in exclude]
    return TablePart(file, names, _parquet_rows(file, columns, keep))


def _parquet_rows(
    file: Path, columns: Collection[str] | None, keep: tuple[str, Collection[Any]] | None
) -> Iterator[tuple[str, Row]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(
            file,
            columns=list(columns) if columns is not None else None,
            filters=[(keep[0], "in", list(keep[1]))] if keep is not None else None,
        )
    except Exception as error:
        raise TableReadError(f"not a readable parquet file ({error})", path=file) from error
    number = 0
    for batch in table.to_batches():  # a batch at a time: the action table holds ~100K characters of HTML a row
        for row in batch.to_pylist():
            number += 1
            yield f"row {number}", row


def _raise_csv_field_limit() -> None:
    """Transcripts and pages run to hundreds of kilobytes, past csv's 128 KB default."""
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 10


def _csv_part(path: Path) -> TablePart:
    _raise_csv_field_limit()
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = csv.DictReader(handle).fieldnames or []
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise TableReadError(f"not a readable CSV file ({error})", path=path) from error
    return TablePart(path, tuple(header), _csv_rows(path))


def _csv_rows(path: Path) -> Iterator[tuple[str, Row]]:
    line = 1
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None:  # reads the header: an empty file has no rows
                return
            line = reader.line_num + 1
            for number, row in enumerate(reader, start=1):
                yield f"row {number} (line {line})", row
                line = reader.line_num + 1
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise TableReadError(f"not a readable CSV file ({error})", path=path, location=f"line {line}") from error
