"""`twinsim calibrate`: the shipped parameters are reproducible, and the full release's names are learned."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.behaviour.calibrate import calibrate
from agent.behaviour.params import PARAMS_PATH, load_params
from agent.brains.base import TwinContext
from agent.brains.embedded import EmbeddedBrain
from agent.history import Step
from agent.actions import ClickAction
from agent.observation import EMPTY_OBSERVATION

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "opera_small"


def _twinsim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).with_name("twinsim")), *args], cwd=REPO, capture_output=True, text=True,
                          timeout=900, stdin=subprocess.DEVNULL)


def test_shipped_parameters_are_reproduced_byte_for_byte(tmp_path: Path, opera_dir: Path):
    """The promise of the README: same data, same seed, same file (a full calibration, about a minute)."""
    out = tmp_path / "params.json"
    result = _twinsim("calibrate", "--timelines", str(opera_dir / "timelines.jsonl"),
                      "--personas", str(opera_dir / "personas.jsonl"), "--out", str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    assert out.read_bytes() == PARAMS_PATH.read_bytes()
    assert out.stat().st_size <= 5_000_000
    report = json.loads(result.stdout)
    assert (report["source"]["sessions"], report["source"]["users"]) == (196, 15)  # the sessions with an action


def test_calibrating_with_an_action_table_learns_element_names(tmp_path: Path, opera_dir: Path):
    out = tmp_path / "params.json"
    report = calibrate(timelines=opera_dir / "timelines.jsonl", personas=opera_dir / "personas.jsonl",
                       actions=FIXTURES / "actions.parquet", users=FIXTURES / "users.csv", out=out, small_search=True)
    assert report["learned_names"] is True
    params = load_params(out)
    assert params.naming.learned
    # A name that follows another in the fixture sessions is what the page-free twin now names after it.
    first, (after, click_type) = next((name, next(iter(row.items()))[::-1]) for name, row in params.naming.after.items())
    brain = EmbeddedBrain(out)
    past = [Step(action=ClickAction(name=first), click_type=None)]
    named = [brain.decide_sync(TwinContext(persona=None, memories=[], observation=EMPTY_OBSERVATION, history=past,
                                           mode="sample", seed=seed)) for seed in range(200)]
    assert any(d.action.type == "click" and d.action.name == after for d in named if d.details["click_type"] == click_type)


@pytest.mark.parametrize("args, message", [
    (["--timelines", "/nonexistent/timelines.jsonl"], "no such file"),
    (["--actions", "/nonexistent/actions.parquet"], "no such file"),
])
def test_bad_calibration_input_is_a_clear_error(tmp_path: Path, args: list[str], message: str):
    result = _twinsim("calibrate", *args, "--out", str(tmp_path / "p.json"))
    assert result.returncode != 0
    assert message in (result.stdout + result.stderr)
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "p.json").exists()
