"""`twinsim calibrate`: the shipped parameters are reproducible, and the full release's names are learned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.actions import ClickAction
from agent.behaviour.params import PARAMS_PATH, load_params
from agent.brains.embedded import EmbeddedBrain
from agent.calibration.calibrate import calibrate
from agent.history import Step
from agent.page.observation import EMPTY_OBSERVATION
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.twin_context import TwinContext

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "opera_small"


def _twinsim(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).with_name("twinsim")), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def test_shipped_parameters_are_reproduced_byte_for_byte(tmp_path: Path, opera_dir: Path):
    """The promise of the README: same data, same seed, same file (a full calibration, about a minute)."""
    out = tmp_path / "params.json"
    result = _twinsim(
        "calibrate",
        "--timelines",
        str(opera_dir / "timelines.jsonl"),
        "--personas",
        str(opera_dir / "personas.jsonl"),
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert out.read_bytes() == PARAMS_PATH.read_bytes()
    assert out.stat().st_size <= 5_000_000
    report = json.loads(result.stdout)
    assert (report["source"]["sessions"], report["source"]["users"]) == (196, 15)  # the sessions with an action


def _action_table(path: Path) -> Path:
    """Eight recorded sessions in OPeRA's action-table format, where a review always follows an option click."""
    names = [
        ("input", None, "nav_bar.search_input"),
        ("click", "search", "nav_bar.search_button"),
        ("click", "product_link", "search_results.trail_runner.product_name"),
        ("click", "product_option", "product_options.size.button_list.m"),
        ("click", "review", "reviews.popover.review_images.next"),
        ("click", "purchase", "buybox.purchase_form.buy_now"),
    ]
    rows = []
    for session in range(8):
        session_id = f"user{session % 3}_2025-03-0{session + 1}T10:00:00_2025-03-0{session + 1}T10:20:00"
        for step, (kind, click_type, name) in enumerate(names):
            rows.append(
                {
                    "session_id": session_id,
                    "timestamp": f"2025-03-0{session + 1}T10:0{step}:00",
                    "action_type": kind,
                    "click_type": click_type,
                    "semantic_id": name,
                    "input_text": "trail running shoes" if kind == "input" else "",
                }
            )
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    return path


def test_calibrating_with_an_action_table_learns_element_names(tmp_path: Path, opera_dir: Path):
    out = tmp_path / "params.json"
    report = calibrate(
        timelines=opera_dir / "timelines.jsonl",
        personas=opera_dir / "personas.jsonl",
        actions=_action_table(tmp_path / "actions.jsonl"),
        out=out,
        small_search=True,
    )
    assert report["learned_names"] is True
    params = load_params(out)
    assert params.naming.learned
    default = EmbeddedBrain()
    learned = EmbeddedBrain(out)
    past = [Step(action=ClickAction(name="product_options.size.button_list.m"), click_type="product_option")]

    def review_names(brain: EmbeddedBrain) -> set[str]:
        decisions = [
            brain.decide_sync(
                TwinContext.on_page(
                    None,
                    EMPTY_OBSERVATION,
                    PredictionInput(history=past, options=PredictOptions(mode="sample", seed=seed)),
                )
            )
            for seed in range(300)
        ]
        return {d.action.name for d in decisions if d.details["click_type"] == "review"}

    # Without a page, the twin now names the review element these people used after an option click.
    assert review_names(learned) == {"reviews.popover.review_images.next"}
    assert "reviews.popover.review_images.next" not in review_names(default)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--timelines", "/nonexistent/timelines.jsonl"], "no such file"),
        (["--actions", "/nonexistent/actions.parquet"], "no such file"),
    ],
)
def test_bad_calibration_input_is_a_clear_error(tmp_path: Path, args: list[str], message: str):
    result = _twinsim("calibrate", *args, "--out", str(tmp_path / "p.json"))
    assert result.returncode != 0
    assert message in (result.stdout + result.stderr)
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda text: text[: len(text) // 2], "are not usable"),  # a truncated copy
        (lambda text: json.dumps({**json.loads(text), "person_chain": {"strength": 16.0}}), "missing 'counts'"),
    ],
)
def test_serving_parameters_that_cannot_be_read_is_a_settings_error(tmp_path: Path, damage, message: str):
    broken = tmp_path / "params.json"
    broken.write_text(damage(PARAMS_PATH.read_text(encoding="utf-8")), encoding="utf-8")
    result = _twinsim(
        "personas", "list", env={"TWINSIM_BEHAVIOUR_PARAMS": str(broken), "TWINSIM_DATA_DIR": str(tmp_path / "data")}
    )
    assert result.returncode == 2
    assert message in result.stderr and str(broken) in result.stderr and "Traceback" not in result.stderr


def test_serving_parameters_that_do_not_exist_is_a_settings_error(tmp_path: Path):
    result = _twinsim(
        "personas",
        "list",
        env={"TWINSIM_BEHAVIOUR_PARAMS": str(tmp_path / "missing.json"), "TWINSIM_DATA_DIR": str(tmp_path / "data")},
    )
    assert result.returncode == 2
    assert "no behaviour parameters file" in result.stderr and "Traceback" not in result.stderr
