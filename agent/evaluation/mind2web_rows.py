"""Reading Multimodal-Mind2Web: its parquet files (or JSONL of the same rows), one step per row, streamed.

Multimodal-Mind2Web (Zheng et al. 2024, "GPT-4V(ision) is a Generalist Web Agent, if Grounded", arXiv 2401.01614;
built on Mind2Web, Deng et al. 2023, NeurIPS; dataset osunlp/Multimodal-Mind2Web, OpenRAIL) ships one parquet
file set per split, named `<split>-NNNNN-of-NNNNN-<hash>.parquet`, each row a step: the task in words
(`confirmed_task`), the page (`cleaned_html`), the operation (a dict, or a JSON string in some copies), the true
element(s) (`pos_candidates`, possibly empty) and the others (`neg_candidates`), each a dict or a JSON string
whose `attributes` is JSON, and every step of the task in words (`action_reprs`, with `target_action_index`).

Only the columns the evaluation uses are read (the files are ~300 MB each, mostly screenshots and raw HTML), a
few rows at a time; `screenshot` only when the twin is to see it (`twinsim eval --screenshots`). A file that is not of
this layout is refused naming the file, the row and what is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.json_object_cell import json_object
from agent.page.node_pages import NodeCandidate, node_candidates
from agent.screenshots import cell_bytes

SPLITS: tuple[str, ...] = ("test_task", "test_website", "test_domain", "train")
TEST_SPLITS: tuple[str, ...] = SPLITS[:3]
UNLABELLED = "unlabelled"
REQUIRED = (
    "annotation_id",
    "confirmed_task",
    "cleaned_html",
    "operation",
    "pos_candidates",
    "neg_candidates",
    "action_reprs",
    "target_action_index",
)
OPTIONAL = ("action_uid", "website", "domain", "subdomain", "target_action_reprs")
SCREENSHOT = "screenshot"  # the page before the action: an image struct ({bytes, path}) in the parquet files
OPERATIONS = ("CLICK", "TYPE", "SELECT")
_SPLIT_PREFIX = re.compile(r"^(test_task|test_website|test_domain|train)(?=[-_.]|$)")
_SUFFIXES = {".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}
BATCH_ROWS = 16


class Mind2WebFormatError(ValueError):
    """The path is not Multimodal-Mind2Web rows; the message names the file, the row and the problem."""


@dataclass(frozen=True)
class Mind2WebStep:
    """One row: a step of a task, as the evaluation needs it."""

    split: str
    source: str  # "FILE row N" (parquet, 0-based) or "FILE line N" (JSONL), for messages
    annotation_id: str  # the task
    action_uid: str
    website: str
    domain: str
    subdomain: str
    task: str  # confirmed_task
    cleaned_html: str
    op: str  # CLICK, TYPE or SELECT
    value: str  # typed text or chosen option ("" for CLICK)
    pos: tuple[NodeCandidate, ...]  # the true element(s); empty when it did not survive cleaning
    neg: tuple[NodeCandidate, ...]
    previous: tuple[str, ...]  # action_reprs before this step
    index: int  # target_action_index
    target_repr: str
    screenshot: bytes | None = None  # the row's screenshot (unchecked), when read


def split_of(path: Path) -> str | None:
    match = _SPLIT_PREFIX.match(path.name)
    return match.group(1) if match else None


def dataset_files(path: Path, split: str | None = None) -> list[tuple[Path, str]]:
    """The files to read and the split of each. A directory is searched (recursively) for parquet and JSONL files
    named by split; without `split`, the test splits and files named by none; `train` only when asked."""
    if split is not None and split not in SPLITS:
        raise Mind2WebFormatError(f"unknown split '{split}'; choose one of {', '.join(SPLITS)}")
    if not path.exists():
        raise Mind2WebFormatError(f"{path}: no such file or directory")
    if path.is_file():
        if path.suffix.lower() not in _SUFFIXES:
            raise Mind2WebFormatError(f"{path}: not a parquet or JSONL file (expected .parquet or .jsonl)")
        named = split_of(path)
        if split is not None and named is not None and named != split:
            raise Mind2WebFormatError(f"{path} holds the {named} split, not {split}")
        return [(path, split or named or UNLABELLED)]
    found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES)
    if not found:
        raise Mind2WebFormatError(f"{path}: no parquet or JSONL files in it")
    labelled = [(p, split_of(p) or UNLABELLED) for p in found]
    if split is not None:
        chosen = [(p, s) for p, s in labelled if s == split]
        if not chosen:
            present = sorted({s for _, s in labelled})
            raise Mind2WebFormatError(
                f"{path}: no {split} files (expected names like {split}-00000-of-00005.parquet); "
                f"found: {', '.join(present)}"
            )
        return chosen
    chosen = [(p, s) for p, s in labelled if s != "train"]
    if not chosen:
        raise Mind2WebFormatError(f"{path}: only train files; pass --split train to evaluate on them")
    return chosen


def _operation(value: object, where: str) -> tuple[str, str]:
    try:
        value = json_object(value, "operation", expected="an object with op and value")
    except ValueError as error:
        raise Mind2WebFormatError(f"{where}: {error}") from None
    op = str(value.get("op") or "").upper()
    if op in ("HOVER", "ENTER"):
        op = "CLICK"  # Mind2Web maps them so; `original_op` keeps them
    if op not in OPERATIONS:
        raise Mind2WebFormatError(f"{where}: operation op is {value.get('op')!r}, not one of {', '.join(OPERATIONS)}")
    return op, "" if op == "CLICK" else str(value.get("value") or "")


def _strings(value: object, name: str, where: str) -> list:
    if hasattr(value, "tolist"):  # numpy arrays from parquet
        value = value.tolist()
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise Mind2WebFormatError(f"{where}: {name} is a {type(value).__name__}, not a list")
    return list(value)


def to_step(row: Mapping, split: str, where: str, screenshots_from: Path | None = None) -> Mind2WebStep:
    """One row as a step; Mind2WebFormatError says what is wrong with it. With `screenshots_from` (the file's
    folder, for a screenshot given as a relative path) the row's screenshot bytes are kept."""
    missing = [c for c in REQUIRED if c not in row]
    if missing:
        raise Mind2WebFormatError(f"{where}: missing field(s) {', '.join(missing)}")
    task = " ".join(str(row["confirmed_task"] or "").split())
    if not task:
        raise Mind2WebFormatError(f"{where}: confirmed_task is empty")
    op, value = _operation(row["operation"], where)
    try:
        pos = node_candidates(_strings(row["pos_candidates"], "pos_candidates", where))
        neg = node_candidates(_strings(row["neg_candidates"], "neg_candidates", where))
    except ValueError as error:
        if isinstance(error, Mind2WebFormatError):
            raise
        raise Mind2WebFormatError(f"{where}: {error}") from None
    reprs = [str(r) for r in _strings(row["action_reprs"], "action_reprs", where)]
    try:
        index = int(str(row["target_action_index"]).strip())
    except ValueError:
        raise Mind2WebFormatError(
            f"{where}: target_action_index {row['target_action_index']!r} is not a number"
        ) from None
    if not 0 <= index <= len(reprs):
        raise Mind2WebFormatError(f"{where}: target_action_index {index} is outside action_reprs ({len(reprs)} steps)")
    return Mind2WebStep(
        split=split,
        source=where,
        annotation_id=str(row["annotation_id"]),
        action_uid=str(row.get("action_uid") or index),
        website=str(row.get("website") or ""),
        domain=str(row.get("domain") or ""),
        subdomain=str(row.get("subdomain") or ""),
        task=task,
        cleaned_html=str(row["cleaned_html"] or ""),
        op=op,
        value=value,
        pos=tuple(pos),
        neg=tuple(neg),
        previous=tuple(reprs[:index]),
        index=index,
        target_repr=str(row.get("target_action_reprs") or ""),
        screenshot=cell_bytes(row.get(SCREENSHOT), screenshots_from) if screenshots_from is not None else None,
    )


def _parquet_rows(path: Path, screenshots: bool = False) -> Iterator[tuple[str, dict]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise Mind2WebFormatError(f"{path}: not a readable parquet file ({str(error).splitlines()[0]})") from None
    names = set(handle.schema_arrow.names)
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise Mind2WebFormatError(f"{path}: not Multimodal-Mind2Web rows: missing column(s) {', '.join(missing)}")
    columns = [c for c in REQUIRED + OPTIONAL + ((SCREENSHOT,) if screenshots else ()) if c in names]
    number = 0
    for batch in handle.iter_batches(batch_size=BATCH_ROWS, columns=columns):
        for row in batch.to_pylist():
            yield f"row {number}", row
            number += 1


def _jsonl_rows(path: Path) -> Iterator[tuple[str, dict]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise Mind2WebFormatError(f"{path}: {error.strerror or error}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise Mind2WebFormatError(f"{path} line {number}: not JSON ({error})") from None
            if not isinstance(row, dict):
                raise Mind2WebFormatError(f"{path} line {number}: a {type(row).__name__}, not a row object")
            yield f"line {number}", row


def iter_steps(files: list[tuple[Path, str]], screenshots: bool = False) -> Iterator[Mind2WebStep]:
    """Every row of every file, in file order, as steps (read a few rows at a time); with `screenshots`, each
    keeps its row's screenshot."""
    for path, split in files:
        rows = _parquet_rows(path, screenshots) if _SUFFIXES[path.suffix.lower()] == "parquet" else _jsonl_rows(path)
        try:
            for where, row in rows:
                yield to_step(row, split, f"{path} {where}", path.parent if screenshots else None)
        except UnicodeDecodeError as error:
            raise Mind2WebFormatError(f"{path}: not UTF-8 text ({error.reason})") from None
