"""The decision export of a live simulation: twins browse the demo shop in headless Chromium, and write_outputs
puts one row per step beside report.json, with the rendered pages they read stored once each under pages/; an
interview finds a twin's decision and its page there."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pandas as pd
import pytest

from agent.exports.decision_table import COLUMN_NAMES
from agent.interview import decision_in_run
from agent.page.parse import parse_page
from agent.simulation import SimulationConfig, run_simulation
from agent.simulation.output import write_outputs
from tests.support.sample_twins import EXAMPLE, OPERA_USER, services_with_sample_twins

pytestmark = pytest.mark.integration


def test_a_simulation_exports_every_step_and_each_page_once(tmp_path_factory, opera_dir, shop_url):
    services = services_with_sample_twins(tmp_path_factory.mktemp("sim-export"), opera_dir)
    ids = [OPERA_USER, EXAMPLE]
    personas = [services.store.get_persona(pid) for pid in ids]
    config = SimulationConfig(url=shop_url + "/", persona_ids=ids, max_steps=5, seed=1)
    result = asyncio.run(run_simulation(config, personas, services.graph))
    out = tmp_path_factory.mktemp("sim-out") / "sim-1"
    paths = write_outputs(result, out, personas)

    table = pd.read_parquet(paths["decisions"])
    steps = [(t.persona_id, s) for t in result.traces for s in t.steps]
    assert tuple(table.columns) == COLUMN_NAMES and len(table) == len(steps) > 2
    assert set(table.run_kind) == {"simulation"} and set(table.run_id) == {"sim-1"}
    assert table.variant.isna().all() and table.instance.isna().all()
    for (persona_id, step), row in zip(steps, table.itertuples(), strict=True):
        assert row.decision_id == f"{persona_id}/{step.step}" and row.persona_id == persona_id
        assert (row.page_url, row.action_type, row.rationale) == (step.url, step.action.type, step.rationale)
        assert list(row.memory_ids) == [m.id for m in step.memories] and all(row.memory_ids)
        assert [r["phrase"] for r in row.reasons] == [r.phrase for r in step.evidence.reasons]
    for trace in result.traces:  # the last step of every twin that took one is marked
        rows = table[table.persona_id == trace.persona_id]
        assert list(rows.last_step) == [False] * (len(rows) - 1) + [True]
    assert set(table.persona_gender.dropna())  # who the twin is, from its persona card

    stored = {path.stem: path for path in (out / "pages").iterdir()}
    assert set(stored) == set(table.page_sha256)  # every page read, and no other
    assert len(stored) < len(table)  # a page read twice (the same render) is stored once
    for sha, path in stored.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
        row = table[table.page_sha256 == sha].iloc[0]
        assert parse_page(path.read_text(), url=row.page_url).title == row.page_title

    # the trace JSON names each page by its hash and carries the evidence, not the page itself
    trace = json.loads((out / "traces" / f"{OPERA_USER}.json").read_text())
    assert all("page_html" not in step and step["page_sha256"] in stored for step in trace["steps"])
    assert all(s.page_html is None for t in result.traces for s in t.steps)  # stored, then let go

    # an interview about the simulation finds a twin's last decision and its page there
    last = next(t for t in result.traces if t.persona_id == OPERA_USER).steps[-1]
    asked, html = decision_in_run(out, OPERA_USER)
    assert asked.decision_id == f"{OPERA_USER}/{last.step}" and asked.rationale == last.rationale
    assert hashlib.sha256(html.encode()).hexdigest() == last.page_sha256
