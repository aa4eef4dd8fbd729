"""A simulation of a start page that is not there is a failed run with the reason, not a report of twins that
"left after 0 steps": `twinsim simulate` checks the URL with one request before any store or browser starts
(exit 2, one line), and a run where every twin failed to open the page is refused after the fact too."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from agent.simulation.trace import Failure, TwinTrace
from service.cli.main import app
from tests.conftest import REPO
from tests.support.service_process import free_port


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINSIM_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def simulate(url: str, out):
    return CliRunner().invoke(app, ["simulate", "--url", url, "--personas", "sam-chen", "--out", str(out)])


def test_simulate_against_a_dead_port_exits_2_naming_the_url_and_the_reason(env):
    imported = CliRunner().invoke(app, ["personas", "import", str(REPO / "personas" / "examples" / "sam-chen.json")])
    assert imported.exit_code == 0, imported.output  # a real twin, so only the URL can be what is wrong
    url = f"http://127.0.0.1:{free_port()}/"
    result = simulate(url, env / "run")
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert f"cannot load {url}: connection refused" in message
    assert "Traceback" not in result.output and "after 0 steps" not in result.output
    assert not (env / "run" / "report.json").exists()


def test_simulate_against_a_missing_page_exits_2_with_the_http_status(env, shop_url):
    result = simulate(shop_url + "/no-such-page", env / "run")
    assert result.exit_code == 2, result.output
    assert "answered HTTP 404" in " ".join(result.output.split())


def test_simulate_outside_the_allowed_hosts_is_refused_before_any_request(env, monkeypatch, shop_url):
    monkeypatch.setenv("TWINSIM_ALLOWED_HOSTS", "shop.example.com")
    result = simulate(shop_url + "/", env / "run")
    assert result.exit_code == 2 and "not on an allowed host" in " ".join(result.output.split())


def test_a_live_start_page_passes_the_check(shop_url):
    from agent.simulation.start_page import StartPageUnreachable, check_start_url

    check_start_url(shop_url + "/")  # the demo shop answers 200
    with pytest.raises(StartPageUnreachable, match="does not resolve"):
        check_start_url("http://no-such-shop.invalid/")


def trace(persona: str, failure: Failure | None) -> TwinTrace:
    return TwinTrace(
        persona_id=persona,
        start_url="http://127.0.0.1:9/",
        seed=0,
        outcome="error" if failure else "left",
        failure=failure,
    )


def test_a_run_where_no_twin_opened_the_start_page_is_a_failure_not_a_funnel():
    from agent.simulation.start_page import start_failure

    refused = Failure(kind="navigation_failed", message="net::ERR_CONNECTION_REFUSED", step=0)
    assert "no twin could open it" in start_failure([trace("a", refused), trace("b", refused)])
    assert start_failure([trace("a", refused), trace("b", None)]) is None  # one twin got in: a real result
    later = Failure(kind="dead_link", message="HTTP 404", step=3)
    assert start_failure([trace("a", later)]) is None


def test_a_redirect_off_the_web_is_refused_naming_it():
    """A start page that redirects to file: is a clear refusal, not "the host name 'None' does not resolve"."""
    from starlette.applications import Starlette
    from starlette.responses import RedirectResponse
    from starlette.routing import Route

    from agent.simulation.start_page import StartPageUnreachable, check_start_url
    from tests.support.live_server import serve

    app = Starlette(routes=[Route("/", lambda request: RedirectResponse("file:///etc/passwd", status_code=302))])
    with serve(app) as url, pytest.raises(StartPageUnreachable) as refused:
        check_start_url(url + "/")
    assert "its redirect to file:" in str(refused.value) and "is a file: address" in str(refused.value)
    assert "None" not in str(refused.value)
