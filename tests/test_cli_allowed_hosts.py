"""The CLI's live runs (`twinsim experiment run` with live_url variants, `twinsim simulate`) follow the service's
allowed-hosts rule: TWINSIM_ALLOWED_HOSTS when set; with API keys set (a shared install), public hosts only; without
keys, loopback, so the README's local commands (the demo shop on 127.0.0.1) still work."""

from __future__ import annotations

import json

import pytest
import yaml
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route
from typer.testing import CliRunner

from service.cli.main import app
from tests.conftest import REPO
from tests.support.live_server import serve

pytestmark = pytest.mark.integration
PAGE = '<html><body><h1>Shop</h1><button name="buy">Buy</button></body></html>'
PERSONA = REPO / "personas" / "examples" / "sam-chen.json"


@pytest.fixture
def site():
    hits: list[str] = []

    async def page(request):
        hits.append(request.url.path)
        return HTMLResponse(PAGE)

    with serve(Starlette(routes=[Route("/{path:path}", page)])) as url:
        yield url, hits


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINSIM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("TWINSIM_ALLOWED_HOSTS", "TWINSIM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def live_spec(tmp_path, url: str):
    spec = {
        "name": "live hosts",
        "variants": [
            {"name": "A", "live_url": f"{url}/a", "max_steps": 1},
            {"name": "B", "live_url": f"{url}/b", "max_steps": 1},
        ],
        "population": {"ids": ["sam-chen"]},
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def run_experiment(spec, out):
    return CliRunner().invoke(app, ["experiment", "run", str(spec), "--out", str(out), "--personas", str(PERSONA)])


@pytest.mark.parametrize(
    "variable,value",
    [("TWINSIM_ALLOWED_HOSTS", "127.0.0.2"), ("TWINSIM_API_KEY", "shared-key")],
    ids=["operator-list", "shared-default"],
)
def test_a_live_experiment_off_the_allowed_hosts_is_refused_before_twins_run(env, site, monkeypatch, variable, value):
    url, hits = site
    monkeypatch.setenv(variable, value)
    result = run_experiment(live_spec(env, url), env / "out")
    assert result.exit_code == 2, result.output
    assert "allowed host" in " ".join(result.output.split()), result.output
    assert hits == [] and not (env / "out" / "results.json").exists()


def test_without_keys_a_live_experiment_on_loopback_runs(env, site):
    url, hits = site
    result = run_experiment(live_spec(env, url), env / "out")
    assert result.exit_code == 0, result.output
    results = json.loads((env / "out" / "results.json").read_text())
    assert results["status"] == "done" and {"/a", "/b"} <= set(hits)


def test_a_simulation_follows_the_shared_default(env, site, monkeypatch):
    url, hits = site
    monkeypatch.setenv("TWINSIM_API_KEY", "shared-key")
    result = CliRunner().invoke(
        app, ["simulate", "--url", f"{url}/start", "--personas", "sam-chen", "--out", str(env / "sim")]
    )
    assert result.exit_code == 2, result.output
    assert "allowed host" in " ".join(result.output.split()) and hits == []
