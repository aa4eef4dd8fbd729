"""`twinsim experiment run`: a real run on the example personas writes results.json and report.html; running it
again resumes from samples.jsonl to the same result; bad input exits non-zero with the reason, no traceback."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from service.cli.main import app
from tests.conftest import PAGES, REPO

EXAMPLES = REPO / "examples" / "experiments"
PERSONA_FILES = [REPO / "personas" / "examples" / "maria.yaml", REPO / "personas" / "examples" / "sam-chen.json"]


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINSIM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path


def write_spec(tmp_path, **overrides):
    spec = yaml.safe_load((EXAMPLES / "deal_banner.yaml").read_text())
    spec["variants"][0]["page"]["path"] = str(PAGES / "product_page.html")
    spec["variants"][1]["page"]["path"] = str(EXAMPLES / "pages" / "product_deal_banner.html")
    spec.update(population={"ids": ["maria-lopez", "sam-chen"]}, samples_per_persona=10, segments=[])
    spec.update(overrides)
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def invoke(*args):
    return CliRunner().invoke(app, ["experiment", "run", *map(str, args)])


def test_a_run_writes_results_and_report_and_a_second_run_resumes_to_the_same_result(env):
    spec = write_spec(env)
    out = env / "out"
    persona_args = [arg for path in PERSONA_FILES for arg in ("--personas", path)]
    first = invoke(spec, "--out", out, *persona_args)
    assert first.exit_code == 0, first.output
    results = json.loads((out / "results.json").read_text())
    assert set(results) >= {"spec", "status", "analysis", "themes", "cost"}
    assert results["status"] == "done" and results["cost"]["samples"] == 2 * 10 * 2
    assert results["analysis"]["comparisons"][0]["paired"] is True
    assert "data-chart='outcome-rates'" in (out / "report.html").read_text()
    assert "A: n=20" in first.output and "B: n=20" in first.output

    second = invoke(spec, "--out", out)
    assert second.exit_code == 0, second.output
    assert "resuming: 40 sample(s)" in second.output
    again = json.loads((out / "results.json").read_text())
    assert again["analysis"] == results["analysis"] and again["cost"]["resumed_samples"] == 40

    other = write_spec(env, seed=43)
    refused = invoke(other, "--out", out)
    assert refused.exit_code == 2 and "holds samples of another spec" in refused.output


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"population": {"ids": ["nobody-here"]}}, "unknown persona id(s): nobody-here"),
        ({"samples_per_persona": 500}, "samples_per_persona: Input should be less than or equal to 100"),
        (
            {
                "variants": [
                    {"name": "A", "page": {"path": "missing.html"}},
                    {"name": "B", "page": {"path": "missing.html"}},
                ]
            },
            "cannot read",
        ),
        (
            {"targets": ["add_to_crat"]},
            "target 'add_to_crat' names no element on the pages of variants A, B (a target is "
            "an element name or a dotted prefix of one); closest: deal_banner.add_to_cart, "
            "buybox.purchase_form.add_to_cart",
        ),
    ],
)
def test_bad_specs_exit_2_with_the_reason(env, overrides, message):
    result = invoke(write_spec(env, **overrides), "--out", env / "out")
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_a_missing_spec_file_exits_2(env):
    result = invoke(env / "nope.yaml", "--out", env / "out")
    assert result.exit_code == 2 and "nope.yaml" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "text, where, sentence",
    [
        ("name: Deal banner\nvariants: [A, B\n", "spec.yaml:3:1", "not valid YAML: expected ',' or ']'"),
        ("name: Deal banner\n  seed: 1\n", "spec.yaml:2:7", "not valid YAML: mapping values are not allowed here."),
        (
            "# a list, not a spec\n- name: A\n- name: B\n",
            "spec.yaml:2:1",
            "the document is a list; an experiment spec is a mapping",
        ),
    ],
)
def test_broken_yaml_gives_file_line_column_and_one_sentence(env, text, where, sentence):
    path = env / "spec.yaml"
    path.write_text(text)
    result = invoke(path, "--out", env / "out")
    message = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert f"{path.parent}/{where}: {sentence}" in message
    assert "Traceback" not in result.output and "<unicode string>" not in result.output  # no parser dump
