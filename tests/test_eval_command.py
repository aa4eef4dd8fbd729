"""`twinsim eval` end to end on a small OPeRA-format dataset, for every brain (the llm one over real HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from service.cli.main import app
from tests.support.openai_server import OpenAICompatibleServer

SMALL = Path(__file__).resolve().parent / "fixtures" / "opera_small"
KEYS = (
    "n",
    "exact_match",
    "action_type_macro_f1",
    "action_type_weighted_f1",
    "click_type_weighted_f1",
    "fine_grained_accuracy",
    "outcome_accuracy",
    "outcome_weighted_f1",
)
N_STEPS = 24


def run(args: list[str], env: dict[str, str]):
    result = CliRunner().invoke(app, args, env=env)
    return result


@pytest.fixture
def env(tmp_path):
    return {"TWINSIM_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}


@pytest.mark.parametrize("brain", ["embedded", "repeat-previous", "majority"])
def test_every_offline_brain_runs_through_the_command(brain, env, tmp_path):
    out = tmp_path / "report.json"
    result = run(
        [
            "eval",
            "--actions",
            str(SMALL / "actions.parquet"),
            "--users",
            str(SMALL / "personas.jsonl"),
            "--brain",
            brain,
            "--out",
            str(out),
            "--html",
            str(tmp_path / "report.html"),
        ],
        env,
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    metrics = report["metrics"]
    assert metrics["n"] == N_STEPS and metrics["n_sessions"] == 5
    for key in KEYS[1:]:
        assert 0.0 <= metrics[key] <= 1.0
    assert report["run"]["brain"] == brain and report["run"]["task"] == "page-conditioned"
    assert report["run"]["sessions_without_persona"] == []
    assert report["published"][0]["system"].startswith("GPT-4.1")
    assert "data-chart='confusion-action_type'" in (tmp_path / "report.html").read_text()


def test_repeat_previous_scores_what_repeating_scores(env, tmp_path):
    """Hand check on the fixture: repeating the previous gold action is exactly right once (the second
    reviews.popover.review_images.next of session A2), and at step 0 it plays the majority action, a click on
    `reviews`, which is how session A2 starts: 2 of 24."""
    out = tmp_path / "r.json"
    result = run(
        [
            "eval",
            "--actions",
            str(SMALL / "actions_page_free.jsonl"),
            "--users",
            str(SMALL / "users.csv"),
            "--brain",
            "repeat-previous",
            "--out",
            str(out),
        ],
        env,
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["run"]["task"] == "page-free"
    assert report["metrics"]["exact_match"] == pytest.approx(2 / N_STEPS)
    assert report["run"]["sessions_without_persona"]  # user C is not in users.csv: predicted persona-free


def test_llm_brain_through_a_real_server_with_resume_and_cache(env, tmp_path):
    answer = json.dumps(
        {"rationale": "I'll search again.", "action": {"type": "click", "name": "nav_bar.search_button"}}
    )
    with OpenAICompatibleServer(default_reply=answer) as server:
        env = {**env, "TWINSIM_LLM_API_BASE": server.base_url, "TWINSIM_LLM_RETRIES": "0"}
        out = tmp_path / "llm.json"
        args = [
            "eval",
            "--actions",
            str(SMALL / "actions.parquet"),
            "--users",
            str(SMALL / "users.csv"),
            "--brain",
            "llm",
            "--model",
            "openai/twin-test",
            "--concurrency",
            "3",
            "--out",
            str(out),
            "--limit",
            "2",
        ]
        result = run(args, env)
        assert result.exit_code == 0, result.output
        report = json.loads(out.read_text())
        assert report["metrics"]["n"] == 11 and server.completions_served == 11
        assert report["run"]["usage"]["calls"] == 11 and report["run"]["usage"]["total_tokens"] > 0
        assert report["run"]["fallbacks"] == 0
        # exact matches: the two gold clicks on nav_bar.search_button... only one in the first two sessions
        assert report["metrics"]["exact_match"] == pytest.approx(1 / 11)
        again = run(args, env)  # resumes from the checkpoint: no new calls
        assert again.exit_code == 0, again.output
        assert server.completions_served == 11
        assert json.loads(out.read_text())["run"]["resumed_steps"] == 11


@pytest.mark.parametrize(
    "args, message",
    [
        (["--ablate", "persona,vibes"], "unknown ablation"),
        (["--brain", "oracle"], "unknown brain"),
        (["--sessions", "nope"], "none of the requested"),
        (["--brain", "llm"], "needs --model"),
    ],
)
def test_bad_arguments_are_clear_errors(args, message, env):
    result = run(["eval", "--actions", str(SMALL / "actions.parquet"), "--users", str(SMALL / "users.csv"), *args], env)
    assert result.exit_code != 0
    assert message in result.output


def test_missing_files_are_clear_errors(env, tmp_path):
    result = run(["eval", "--actions", str(tmp_path / "nope.parquet"), "--users", str(SMALL / "users.csv")], env)
    assert result.exit_code != 0 and "no such file" in result.output
