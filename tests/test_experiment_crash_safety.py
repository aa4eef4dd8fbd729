"""Crash safety of experiments: `kill -9` the real API process while a large experiment runs, restart it on the
same data dir, and check that a finished experiment's result is intact, the killed run is marked
"interrupted", and resuming it keeps the samples finished before the kill and ends with the same result as an
uninterrupted run of the same spec and seed (the embedded brain is deterministic per seed).

(The crash safety of bulk persona import is tests/test_crash_safety.py.)
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest

from tests.conftest import REPO, page
from tests.support.service_process import ServiceProcess

pytestmark = pytest.mark.integration

N_PERSONAS = 4
SEARCH_URL = "https://www.amazon.com/s?k=usb+c+cable"
PRODUCT_URL = "https://www.amazon.com/dp/B0TWINSIM1"
BANNER_PAGE = (REPO / "examples" / "experiments" / "pages" / "product_deal_banner.html").read_text()
KILL_AFTER = 400  # samples stored before the kill: two batches of the runner (FLUSH_EVERY = 200)
RUN_SPECIFIC = ("wall_s", "resumed_samples")  # the only fields of `cost` that may differ between two runs


def spec(persona_ids: list[str], *, name: str, variants: int, samples_per_persona: int) -> dict:
    """Search results, then the product page (with reviews on even variants, the deal banner on odd ones)."""
    return {
        "name": name,
        "variants": [
            {
                "name": f"V{i}",
                "pages": [
                    {"simplified_html": page("search_results.html"), "page_url": SEARCH_URL},
                    {"simplified_html": BANNER_PAGE if i % 2 else page("product_page.html"), "page_url": PRODUCT_URL},
                ],
            }
            for i in range(variants)
        ],
        "population": {"ids": persona_ids},
        "samples_per_persona": samples_per_persona,
        "targets": ["deal_banner"],
        "segments": ["prime"],
        "seed": 11,
    }


def submit(service: ServiceProcess, body: dict) -> str:
    response = httpx.post(f"{service.url}/experiments", json=body, timeout=120)
    assert response.status_code == 202, response.text
    return response.json()["id"]


def read(service: ServiceProcess, experiment_id: str) -> dict:
    response = httpx.get(f"{service.url}/experiments/{experiment_id}", timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def wait_until_finished(service: ServiceProcess, experiment_id: str, limit_s: float = 600) -> dict:
    deadline = time.monotonic() + limit_s  # a guard against hanging, not a speed assertion
    while time.monotonic() < deadline:
        body = read(service, experiment_id)
        if body["status"] not in ("queued", "running"):
            return body
        time.sleep(0.2)
    pytest.fail(f"experiment {experiment_id} did not finish within {limit_s} s")


def wait_for_progress(service: ServiceProcess, experiment_id: str, at_least: int, limit_s: float = 600) -> dict:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        body = read(service, experiment_id)
        assert body["status"] in ("queued", "running"), body
        if body["progress"]["done"] >= at_least:
            return body
        time.sleep(0.05)
    pytest.fail(f"experiment {experiment_id} made no progress within {limit_s} s")


def stored_samples(data_dir: Path, experiment_id: str) -> dict[tuple, str]:
    """The sample rows as they are on disk (read while no server runs): key -> the stored JSON."""
    with sqlite3.connect(data_dir / "experiments.sqlite") as db:
        rows = db.execute(
            "SELECT variant, persona_id, instance, data FROM samples WHERE experiment_id = ?", (experiment_id,)
        ).fetchall()
    return {(variant, persona, instance): data for variant, persona, instance, data in rows}


def comparable(results: dict) -> dict:
    """The result document without what only says how this particular run went (wall time, resumed count)."""
    copy = json.loads(json.dumps(results))
    for key in RUN_SPECIFIC:
        copy["cost"].pop(key)
    return copy


def test_kill_9_during_an_experiment_keeps_finished_results_and_the_run_resumes_where_it_stopped(tmp_path, opera_dir):
    records = [json.loads(line) for line in (opera_dir / "personas.jsonl").read_text().splitlines()[:N_PERSONAS]]
    persona_ids = sorted(r.get("user_id") or r["id"] for r in records)
    small = spec(persona_ids, name="small, finished before the crash", variants=2, samples_per_persona=5)
    large = spec(persona_ids, name="large, killed mid-run", variants=10, samples_per_persona=100)
    large_total = N_PERSONAS * 100 * 10
    env = {"TWINSIM_DATA_DIR": str(tmp_path)}

    first = ServiceProcess(env)
    try:
        first.start()
        for record in records:
            assert httpx.post(f"{first.url}/personas", json=record, timeout=120).status_code == 201
        finished_id = submit(first, small)
        finished_before = wait_until_finished(first, finished_id)
        assert finished_before["status"] == "done", finished_before["error"]
        report_before = httpx.get(f"{first.url}/experiments/{finished_id}/report", timeout=60).text

        killed_id = submit(first, large)
        seen = wait_for_progress(first, killed_id, at_least=KILL_AFTER)
        os.kill(first.pid, signal.SIGKILL)
        first.process.wait(timeout=30)
    finally:
        first.stop(kill=True)
    assert first.process.returncode == -signal.SIGKILL
    done_before_kill = seen["progress"]["done"]
    assert KILL_AFTER <= done_before_kill < large_total, "the kill did not land mid-run"

    on_disk = stored_samples(tmp_path, killed_id)
    assert len(on_disk) >= done_before_kill  # every sample reported as done was on disk
    assert len(on_disk) < large_total

    with ServiceProcess(env) as second:
        # the finished experiment: byte for byte what it was, report included
        assert read(second, finished_id) == finished_before
        assert httpx.get(f"{second.url}/experiments/{finished_id}/report", timeout=60).text == report_before
        assert httpx.post(f"{second.url}/experiments/{finished_id}/resume", timeout=30).status_code == 409

        interrupted = read(second, killed_id)
        assert interrupted["status"] == "interrupted" and "resume" in interrupted["error"]
        assert interrupted["results"] is None
        assert done_before_kill <= interrupted["progress"]["done"] <= len(on_disk)
        assert httpx.get(f"{second.url}/experiments/{killed_id}/report", timeout=30).status_code == 409
        listing = {item["id"]: item["status"] for item in httpx.get(f"{second.url}/experiments", timeout=30).json()}
        assert listing == {finished_id: "done", killed_id: "interrupted"}

        resumed = httpx.post(f"{second.url}/experiments/{killed_id}/resume", timeout=120)
        assert resumed.status_code == 202, resumed.text
        final = wait_until_finished(second, killed_id)
        assert final["status"] == "done", final["error"]
        assert final["progress"]["done"] == final["progress"]["total"] == large_total
        cost = final["results"]["cost"]
        assert cost["samples"] == large_total
        assert cost["resumed_samples"] == len(on_disk)  # progress went on from the kill, not from zero

        reference_id = submit(second, large)  # the same spec and seed, never interrupted
        reference = wait_until_finished(second, reference_id)
        assert reference["status"] == "done", reference["error"]
        assert reference["results"]["cost"]["resumed_samples"] == 0

    after = stored_samples(tmp_path, killed_id)
    assert len(after) == large_total
    assert {key: after[key] for key in on_disk} == on_disk  # samples from before the kill were kept, not redone
    assert comparable(final["results"]) == comparable(reference["results"])
    # the resumed run's samples are the uninterrupted run's, one for one
    assert after == stored_samples(tmp_path, reference_id)
    # its decision export holds each decision once, in decisions.jsonl as in decisions.parquet and the results
    lines = (tmp_path / "experiments" / killed_id / "decisions.jsonl").read_text().splitlines()
    ids = [json.loads(line)["decision_id"] for line in lines]
    assert len(ids) == len(set(ids)) == final["results"]["decisions"]["rows"]
    parquet = pq.read_table(tmp_path / "experiments" / killed_id / "decisions.parquet", columns=["decision_id"])
    assert sorted(parquet.column("decision_id").to_pylist()) == sorted(ids)
