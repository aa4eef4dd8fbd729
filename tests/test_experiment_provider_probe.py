"""An LLM experiment whose provider fails is refused before any work (one probe call, a clear error, exit 2),
unless the spec allows falling back; then every fallback is counted in results.json, the report and the CLI.
The provider is a real OpenAI-compatible server on 127.0.0.1 that answers 500 (a dead key or server)."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from service.cli.main import app
from tests.conftest import PAGES, REPO
from tests.support.openai_server import OpenAICompatibleServer

pytestmark = pytest.mark.integration

EXAMPLES = REPO / "examples" / "experiments"
PERSONAS = REPO / "personas" / "examples" / "maria.yaml"


def run(tmp_path, server, **overrides):
    spec = yaml.safe_load((EXAMPLES / "deal_banner.yaml").read_text())
    spec["variants"][0]["page"]["path"] = str(PAGES / "product_page.html")
    spec["variants"][1]["page"]["path"] = str(EXAMPLES / "pages" / "product_deal_banner.html")
    spec.update(
        population={"ids": ["maria-lopez"]},
        samples_per_persona=2,
        segments=[],
        brain="llm",
        model="openai/twin-test",
        concurrency=1,
        **overrides,
    )
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    env = {
        "TWINSIM_DATA_DIR": str(tmp_path / "data"),
        "TWINSIM_LLM_API_BASE": server.base_url,
        "TWINSIM_LLM_RETRIES": "0",
        "HF_HUB_OFFLINE": "1",
        "COLUMNS": "400",
    }
    return CliRunner().invoke(
        app, ["experiment", "run", str(path), "--out", str(tmp_path / "out"), "--personas", str(PERSONAS)], env=env
    )


def test_a_failing_provider_is_refused_before_any_twin_runs(tmp_path):
    with OpenAICompatibleServer(default_reply=("status", 500)) as server:
        result = run(tmp_path, server)
        asked = len(server.requests)
    assert result.exit_code == 2, result.output
    assert "failed a probe call" in result.output and "allow_fallback" in result.output
    assert "Traceback" not in result.output
    assert asked == 1  # the probe only: no twin decided anything
    assert not (tmp_path / "out" / "results.json").exists()


def test_with_allow_fallback_the_fallbacks_are_counted_and_shown(tmp_path):
    with OpenAICompatibleServer(default_reply=("status", 500)) as server:
        result = run(tmp_path, server, allow_fallback=True)
    assert result.exit_code == 0, result.output
    cost = json.loads((tmp_path / "out" / "results.json").read_text())["cost"]
    assert cost["brain"] == "llm" and cost["llm_calls"] == 0
    assert cost["fallbacks"] == cost["predictions"] > 0
    assert "500" in cost["provider_check"]
    report = (tmp_path / "out" / "report.html").read_text()
    assert f"{cost['fallbacks']} of {cost['predictions']} decisions were made by the embedded brain" in report
    assert f"{cost['fallbacks']} of {cost['predictions']} decisions fell back to the embedded brain" in result.output
