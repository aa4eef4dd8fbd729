"""A finished run on disk, as `twinsim report compare` reads it: an experiment's --out (results.json, with
samples.jsonl to pair twins) or a simulation's --out (report.json). A directory that holds neither is refused
with what it does hold: an experiment stopped before its results, a simulation still running, or no run at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agent.experiments.samples import Sample

DOCUMENTS = {"results.json": "experiment", "report.json": "simulation"}


class RunUnreadable(ValueError):
    """The path is not a finished run that can be read; the message says why."""


@dataclass(frozen=True)
class RunOnDisk:
    path: Path
    document: dict
    samples: list[Sample] | None  # an experiment's samples.jsonl, when it is there and readable


def read_run(path: Path) -> RunOnDisk:
    """A run directory, or its results.json / report.json named directly."""
    if path.is_file() and path.name in DOCUMENTS:
        path = path.parent
    if not path.exists():
        raise RunUnreadable(f"{path}: no such directory")
    if not path.is_dir():
        raise RunUnreadable(
            f"{path}: not a run directory (give the --out directory of `twinsim experiment run` or "
            "`twinsim simulate`, or its results.json / report.json)"
        )
    found = [name for name in DOCUMENTS if (path / name).is_file()]
    if not found:
        raise RunUnreadable(f"{path}: {_what_is_there(path)}")
    if len(found) > 1:
        raise RunUnreadable(
            f"{path}: holds both results.json (an experiment) and report.json (a simulation); name the one to compare"
        )
    document = _read_json(path / found[0])
    samples = _read_samples(path / "samples.jsonl") if found[0] == "results.json" else None
    return RunOnDisk(path=path, document=document, samples=samples)


def _what_is_there(path: Path) -> str:
    if (path / "samples.jsonl").exists():
        return (
            "an experiment that has not finished (samples.jsonl but no results.json): it is still running or was "
            "stopped; run the same `twinsim experiment run` command again to finish it"
        )
    if (path / "traces").is_dir() or (path / "screenshots").is_dir():
        return "a simulation that has not finished (no report.json yet): wait for it to end, or run it again"
    return "not a run: no results.json (an experiment's) or report.json (a simulation's)"


def _read_json(path: Path) -> dict:
    try:
        document = json.loads(path.read_text())
    except OSError as error:
        raise RunUnreadable(f"{path}: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RunUnreadable(f"{path}: not valid JSON ({error})") from None
    if not isinstance(document, dict):
        raise RunUnreadable(f"{path}: not a run document (a JSON object)")
    return document


def _read_samples(path: Path) -> list[Sample] | None:
    """The samples, None when the file is missing. A line cut short by a stop is skipped, as the run's resume
    skips it; the comparison pairs twins only when the samples add up to the results."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    samples = []
    for line in lines:
        try:
            samples.append(Sample.model_validate_json(line))
        except ValueError:
            continue
    return samples
