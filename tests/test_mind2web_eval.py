"""`twinsim eval --format mind2web` end to end on a Multimodal-Mind2Web-format fixture built from the documented
layout (tests/support/mind2web_fixture.py; not the real data), as parquet and as JSONL: an LLM scripted through the
loopback OpenAI-compatible server gives metrics checked against hand-computed ones; the embedded brain runs; bad
input is a message and exit 2, never a traceback."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from agent.evaluation.mind2web_metrics import operation_f1, operation_string
from agent.evaluation.mind2web_runner import history_from_reprs
from service.cli.main import app
from tests.support.mind2web_fixture import EXPECTED, SCRIPT, write_jsonl, write_parquet
from tests.support.openai_server import OpenAICompatibleServer

pytestmark = pytest.mark.integration


def fenced(text: str, label: str) -> str:
    return text.split(f"<<<{label}>>>\n", 1)[1].split(f"\n<<<END {label}>>>", 1)[0]


def scripted(request: dict) -> str:
    """The answer SCRIPT gives for the task and step the prompt shows, naming the element by its node id."""
    user = request["messages"][1]["content"]
    task = fenced(user, "TASK")
    step = len(re.findall(r"^\d+\. ", fenced(user, "HISTORY"), re.MULTILINE)) if "<<<HISTORY>>>" in user else 0
    move = SCRIPT[task][step]
    if move[0] == "terminate":
        return json.dumps({"rationale": "I give up.", "action": {"type": "terminate"}})
    names = [line.split(" | ")[0] for line in fenced(user, "PAGE").splitlines() if " | " in line]
    name = next(n for n in names if n.endswith("_" + move[1]))
    action = {"type": "click", "name": name} if move[0] == "click" else {"type": "input", "name": name, "text": move[2]}
    return json.dumps({"rationale": "Next step of my task.", "action": action})


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("m2w")
    write_parquet(root / "parquet" / "data")
    write_jsonl(root / "jsonl")
    return root


@pytest.fixture
def env(tmp_path):
    return {"TWINSIM_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}


def run(args: list[str], env: dict):
    return CliRunner().invoke(app, ["eval", "--format", "mind2web", *map(str, args)], env=env)


def assert_expected(splits: dict) -> None:
    assert set(splits) == set(EXPECTED)
    for split, expected in EXPECTED.items():
        for key, value in expected.items():
            if key == "micro":
                for k, v in value.items():
                    assert splits[split]["micro"][k] == pytest.approx(v), (split, k)
            else:
                assert splits[split][key] == pytest.approx(value), (split, key)


def test_scripted_llm_scores_as_computed_by_hand_from_parquet_and_jsonl(data, env, tmp_path):
    with OpenAICompatibleServer(policy=scripted) as server:
        env = {**env, "TWINSIM_LLM_API_BASE": server.base_url, "TWINSIM_LLM_RETRIES": "0"}
        out, html = tmp_path / "m2w.json", tmp_path / "m2w.html"
        result = run(
            [
                data / "parquet",
                "--brain",
                "llm",
                "--model",
                "openai/twin-test",
                "--concurrency",
                "3",
                "--out",
                out,
                "--html",
                html,
            ],
            env,
        )
        assert result.exit_code == 0, result.output
        report = json.loads(out.read_text())
        assert_expected(report["splits"])
        assert server.completions_served == 12 and report["run"]["fallbacks"] == 0
        # Every request states the task, and the previous steps as the twin's own history.
        first = [
            r
            for r in server.requests
            if "Mumbai" in r["messages"][1]["content"] and '1. input(from, "Mumbai")' in r["messages"][1]["content"]
        ]
        assert first and all("<<<TASK>>>" in r["messages"][1]["content"] for r in server.requests)
        steps = [json.loads(line) for line in (tmp_path / "m2w.steps.jsonl").read_text().splitlines()]
        assert len(steps) == 12 and {s["predicted_operation"] for s in steps} >= {
            "CLICK",
            "TYPE Mumbai",
            "SELECT One-way",
        }
        page = html.read_text()
        assert (
            "GPT-4V, textual choices grounding (SeeAct)" in page and "arXiv 2401.01614" in page and "Mind2Web" in page
        )
        assert report["published"][0]["splits"]["test_task"]["element_accuracy"] == 0.489

        jsonl = run(
            [data / "jsonl", "--brain", "llm", "--model", "openai/twin-test", "--out", tmp_path / "j.json"], env
        )
        assert jsonl.exit_code == 0, jsonl.output
        assert_expected(json.loads((tmp_path / "j.json").read_text())["splits"])
        assert server.completions_served == 12  # the same prompts: answered from the response cache

        one = run(
            [
                data / "jsonl" / "test_website-00000-of-00001.jsonl",
                "--brain",
                "llm",
                "--model",
                "openai/twin-test",
                "--out",
                tmp_path / "w.json",
            ],
            env,
        )
        assert one.exit_code == 0, one.output
        assert list(json.loads((tmp_path / "w.json").read_text())["splits"]) == ["test_website"]
        split = run(
            [
                data / "parquet",
                "--split",
                "test_domain",
                "--brain",
                "llm",
                "--model",
                "openai/twin-test",
                "--out",
                tmp_path / "d.json",
            ],
            env,
        )
        assert split.exit_code == 0, split.output
        assert json.loads((tmp_path / "d.json").read_text())["splits"]["test_domain"]["element_accuracy"] == 0.5


def test_the_embedded_brain_runs_on_the_benchmark(data, env, tmp_path):
    out = tmp_path / "embedded.json"
    result = run([data / "parquet", "--limit", "3", "--out", out], env)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert sum(s["n_tasks"] for s in report["splits"].values()) == 3
    for metrics in report["splits"].values():
        for key in ("element_accuracy", "operation_f1", "step_success_rate", "task_success_rate"):
            assert 0.0 <= metrics[key] <= 1.0
    steps = [json.loads(line) for line in (tmp_path / "embedded.steps.jsonl").read_text().splitlines()]
    assert all(s["brain"] == "embedded" for s in steps)
    assert "test_task:" in result.output


@pytest.mark.parametrize(
    "make, args, message",
    [
        (lambda d: d / "parquet", ["--split", "test_everything"], "Invalid value for '--split'"),
        (
            lambda d: d / "jsonl" / "test_task-00000-of-00001.jsonl",
            ["--split", "test_domain"],
            "holds the test_task split, not test_domain",
        ),
        (lambda d: d / "nowhere", [], "no such file or directory"),
        (lambda d: d, ["--split", "train"], "no train files"),
    ],
)
def test_bad_paths_and_splits_exit_2_with_a_reason(data, env, make, args, message):
    result = run([make(data), *args], env)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_files_of_another_layout_exit_2_with_a_reason(env, tmp_path):
    import pandas as pd

    csv = tmp_path / "rows.csv"
    csv.write_text("a,b\n1,2\n")
    fake = tmp_path / "test_task-0.parquet"
    fake.write_text("this is not parquet")
    other = tmp_path / "other" / "test_task-1.parquet"
    other.parent.mkdir()
    pd.DataFrame({"session_id": ["s"], "action_type": ["click"]}).to_parquet(other)
    bad_line = tmp_path / "bad" / "test_task-0.jsonl"
    bad_line.parent.mkdir()
    bad_line.write_text('{"annotation_id": "a"}\n{not json\n')
    bad_op = tmp_path / "op" / "test_task-0.jsonl"
    bad_op.parent.mkdir()
    from tests.support.mind2web_fixture import rows

    row = dict(rows()[0][1], operation={"op": "SCROLL", "value": ""})
    bad_op.write_text(json.dumps(row) + "\n")
    for path, message in (
        (csv, "not a parquet or JSONL file"),
        (fake, "not a readable parquet file"),
        (other, "missing column(s) annotation_id"),
        (bad_line, "line 1: missing field(s)"),
        (bad_op, "operation op is 'SCROLL'"),
    ):
        result = run([path], env)
        assert result.exit_code == 2, (path, result.output)
        assert message in result.output and "Traceback" not in result.output, result.output


def test_format_and_options_are_checked(env, tmp_path):
    assert "needs PATH" in run([], env).output
    mixed = run([tmp_path, "--actions", tmp_path], env)
    assert mixed.exit_code == 2 and "OPeRA options" in mixed.output
    opera = CliRunner().invoke(app, ["eval", str(tmp_path)], env=env)
    assert opera.exit_code == 2 and "for --format mind2web" in opera.output


def test_operation_f1_and_history_as_mind2web_scores_them():
    assert operation_string("CLICK", "ignored") == "CLICK" and operation_string("TYPE", "New York") == "TYPE New York"
    assert operation_f1("TYPE New York City", "TYPE New York") == pytest.approx(6 / 7)
    assert operation_f1("", "") == 1.0 and operation_f1("", "CLICK") == 0.0
    assert operation_f1("SELECT Price : Low", "SELECT Price Low") == 1.0  # a lone punctuation token is dropped
    steps = history_from_reprs(
        [
            "[textbox]  From -> TYPE: Mumbai",
            "[button]  Find flights -> CLICK",
            "[combobox]  Sort by -> SELECT: Price: Low to High",
            "[svg]   -> HOVER",
        ]
    )
    assert [s.action.model_dump() for s in steps] == [
        {"type": "input", "name": "from", "text": "Mumbai"},
        {"type": "click", "name": "find_flights"},
        {"type": "input", "name": "sort_by", "text": "Price: Low to High"},
        {"type": "click", "name": "svg"},
    ]
