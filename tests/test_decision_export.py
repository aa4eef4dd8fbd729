"""The decision export of `twinsim experiment run`: a real run (embedded brain, the sample pages, two example
personas in a real Chroma store) writes one row per twin decision to decisions.jsonl and decisions.parquet with
the documented columns, each page it read once under pages/; a run written before the export existed resumes
(its samples have no rows, and the run says so); an export of another format is refused with the reason."""

from __future__ import annotations

import hashlib
import json
import re

import pandas as pd
import pytest

from agent.exports.decision_table import COLUMN_NAMES, FORMAT_VERSION
from agent.page.parse import parse_page
from personas.persona_card import card_traits, persona_card
from personas.sources import load_personas
from tests.conftest import REPO
from tests.support.cli_experiment_run import PERSONA_FILES, cli_run, invoke, spec_file

# Every field a sample line of samples.jsonl had before decisions were exported (agent/experiments/samples.py).
OLD_SAMPLE_FIELDS = (
    "variant",
    "persona_id",
    "instance",
    "action_type",
    "click_type",
    "element",
    "purchase",
    "leave",
    "target_clicks",
    "rationale",
    "segments",
    "steps",
    "fallbacks",
    "task_reached",
    "task_step",
)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return cli_run(tmp_path_factory.mktemp("export"))


def samples_of(out):
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_a_run_writes_one_row_per_decision_with_the_documented_columns(run):
    out = run["out"]
    table = pd.read_parquet(out / "decisions.parquet")
    assert tuple(table.columns) == COLUMN_NAMES
    docs = (REPO / "docs" / "experiments.md").read_text()
    undocumented = [name for name in COLUMN_NAMES if f"`{name}`" not in docs]
    assert not undocumented, f"columns missing from docs/experiments.md: {undocumented}"

    samples = samples_of(out)
    assert len(table) == sum(s["steps"] for s in samples) > len(samples)  # some twins went on to page 2
    assert table["decision_id"].is_unique and set(table["format_version"]) == {FORMAT_VERSION}
    assert set(table["run_kind"]) == {"experiment"} and set(table["run_id"]) == {out.name}
    for sample in samples:  # each twin run's steps, numbered 1..n, the last one marked, as the sample says
        rows = table[
            (table.variant == sample["variant"])
            & (table.persona_id == sample["persona_id"])
            & (table.instance == sample["instance"])
        ].sort_values("step")
        assert list(rows.step) == list(range(1, sample["steps"] + 1))
        assert list(rows.last_step) == [False] * (sample["steps"] - 1) + [True]
        assert rows.iloc[0].action_type == sample["action_type"] and rows.iloc[-1].rationale == sample["rationale"]
        assert (rows.iloc[-1].action_type == "terminate") == sample["leave"]
    # who the twin is: the persona card's traits, on every row
    for persona in [p for path in PERSONA_FILES for p in load_personas(path)]:
        rows = table[table.persona_id == persona.id]
        for column, value in card_traits(persona_card(persona)).items():
            if column in table.columns:
                assert set(rows[column]) == {value}, column
    # memories the twin was given, from the real store, and the brain's evidence with its drivers in words
    assert all(len(ids) == len(texts) > 0 for ids, texts in zip(table.memory_ids, table.memory_texts, strict=True))
    assert all(i.startswith(f"{p}:") for p, ids in zip(table.persona_id, table.memory_ids, strict=True) for i in ids)
    assert set(table.brain) == {"embedded"} and not table.fallback_used.any()
    probabilities = table[[c for c in COLUMN_NAMES if c.startswith("p_")]].sum(axis=1)
    assert probabilities.between(0.999, 1.001).all()
    assert table.probability.between(0, 1).all() and table.label.notna().all()
    # the rationale is built from the drivers: nearly every one says at least one of them in the same words
    cited = sum(any(r["phrase"].lower() in row.rationale.lower() for r in row.reasons) for _, row in table.iterrows())
    assert cited >= 0.9 * len(table), cited


def test_each_page_is_stored_once_under_its_hash(run):
    out = run["out"]
    table = pd.read_parquet(out / "decisions.parquet")
    stored = {path.stem: path for path in (out / "pages").iterdir()}
    # three distinct pages in four page slots: the search page of both variants is one file
    assert len(stored) == 3 and set(table.page_sha256) == set(stored)
    for sha, path in stored.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    for (sha, url, title), _ in table.groupby(["page_sha256", "page_url", "page_title"]):
        assert parse_page(stored[sha].read_text(), url=url).title == title
    jsonl = [json.loads(line) for line in (out / "decisions.jsonl").read_text().splitlines()]
    assert sorted(row["decision_id"] for row in jsonl) == sorted(table.decision_id)
    results = json.loads((out / "results.json").read_text())
    assert results["decisions"] == {
        "format_version": FORMAT_VERSION,
        "rows": len(table),
        "samples_without_rows": 0,
        "files": ["decisions.jsonl", "decisions.parquet", "pages/"],
    }


def test_a_run_from_before_the_export_resumes_and_says_what_it_lacks(run, tmp_path, monkeypatch):
    """Build the old layout: samples.jsonl of the old Sample shape and the spec fingerprint, no export files."""
    monkeypatch.setenv("TWINSIM_DATA_DIR", str(run["root"] / "data"))
    old = tmp_path / "old"
    old.mkdir()
    (old / "samples.fingerprint").write_text((run["out"] / "samples.fingerprint").read_text())
    samples = samples_of(run["out"])
    kept = samples[: len(samples) // 2]
    assert all(set(s) == set(OLD_SAMPLE_FIELDS) for s in samples)  # the sample line did not change shape
    (old / "samples.jsonl").write_text("".join(json.dumps({k: s[k] for k in OLD_SAMPLE_FIELDS}) + "\n" for s in kept))

    result = invoke("experiment", "run", spec_file(tmp_path), "--out", old)
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert f"resuming: {len(kept)} sample(s)" in output
    assert f"{len(kept)} resumed sample(s) come from a run made before decisions were exported" in output
    results = json.loads((old / "results.json").read_text())
    assert results["decisions"]["samples_without_rows"] == len(kept)
    assert results["analysis"] == json.loads((run["out"] / "results.json").read_text())["analysis"]
    table = pd.read_parquet(old / "decisions.parquet")
    resumed = {(s["variant"], s["persona_id"], s["instance"]) for s in kept}
    assert not {(r.variant, r.persona_id, r.instance) for r in table.itertuples()} & resumed
    assert len(table) == sum(s["steps"] for s in samples[len(kept) :])


def test_an_export_of_another_format_is_refused_with_the_reason(run, tmp_path, monkeypatch):
    monkeypatch.setenv("TWINSIM_DATA_DIR", str(run["root"] / "data"))
    other = tmp_path / "other"
    other.mkdir()
    for name in ("samples.jsonl", "samples.fingerprint"):
        (other / name).write_text((run["out"] / name).read_text())
    (other / "decisions.jsonl").write_text(
        json.dumps({"format_version": FORMAT_VERSION + 1, "decision_id": "x"}) + "\n"
    )
    result = invoke("experiment", "run", spec_file(tmp_path), "--out", other)
    message = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert (
        f"holds decisions of export format {FORMAT_VERSION + 1}; this version writes format {FORMAT_VERSION}" in message
    )
    assert "--fresh starts over" in message
    fresh = invoke("experiment", "run", spec_file(tmp_path), "--out", other, "--fresh")
    assert fresh.exit_code == 0, fresh.output
    assert set(pd.read_parquet(other / "decisions.parquet").format_version) == {FORMAT_VERSION}


def test_jsonl_and_parquet_hold_the_same_rows(run):
    from agent.exports.run_export import read_rows

    rows = read_rows(run["out"])
    table = pd.read_parquet(run["out"] / "decisions.parquet")
    first = table.set_index("decision_id").loc[rows[0]["decision_id"]]
    assert first.rationale == rows[0]["rationale"] and list(first.memory_ids) == rows[0]["memory_ids"]
    assert [dict(r) for r in first.reasons] == rows[0]["reasons"]
    assert re.fullmatch(r"[AB]/(maria-lopez|sam-chen)/\d+/\d+", rows[0]["decision_id"])


def test_a_resume_after_a_stop_leaves_each_decision_once_in_both_files(run, tmp_path, monkeypatch):
    """The state a kill -9 leaves: rows of every sample written, only half the samples kept, and the last row cut
    short mid-line. The resumed run runs the other half again; decisions.jsonl must not hold their rows twice
    (nor lose the row after the cut one), and must hold what decisions.parquet and results.json say."""
    monkeypatch.setenv("TWINSIM_DATA_DIR", str(run["root"] / "data"))
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    (stopped / "samples.fingerprint").write_text((run["out"] / "samples.fingerprint").read_text())
    samples = (run["out"] / "samples.jsonl").read_text().splitlines(keepends=True)
    (stopped / "samples.jsonl").write_text("".join(samples[: len(samples) // 2]))
    lines = (run["out"] / "decisions.jsonl").read_text().splitlines(keepends=True)
    (stopped / "decisions.jsonl").write_text("".join(lines) + lines[-1][: len(lines[-1]) // 2])

    result = invoke("experiment", "run", spec_file(tmp_path), "--out", stopped)
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in (stopped / "decisions.jsonl").read_text().splitlines()]
    ids = [row["decision_id"] for row in written]
    assert len(ids) == len(set(ids))
    table = pd.read_parquet(stopped / "decisions.parquet")
    assert sorted(ids) == sorted(table.decision_id) == sorted(json.loads(line)["decision_id"] for line in lines)
    assert json.loads((stopped / "results.json").read_text())["decisions"]["rows"] == len(ids)
