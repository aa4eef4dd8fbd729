"""Server-side fetches reach only the hosts the operator allows (TWINSIM_ALLOWED_HOSTS; loopback by default),
every redirect hop is checked again, and every failure reads the same, so callers cannot map the network."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.routing import Route

from agent.allowed_hosts import LOOPBACK, HostAllowList
from service.api.app import create_app
from service.settings import Settings
from tests.support.live_server import serve
from tests.support.service_process import free_port

PAGE = '<html><body><button name="buy">Buy</button></body></html>'


def test_the_default_admits_loopback_only():
    allowed = HostAllowList.parse(LOOPBACK)
    for url in ("http://127.0.0.1:8100/", "http://localhost/x", "http://[::1]:8000/", "https://127.9.9.9/"):
        assert allowed.allows(url), url
    for url in ("http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://192.168.1.1:8080/",
                "file:///etc/passwd", "gopher://127.0.0.1/", "http://no-such-host.invalid/", "http:///x"):
        assert not allowed.allows(url), url


def test_names_wildcards_and_networks():
    allowed = HostAllowList.parse("shop.example.com, *.example.org, 10.1.0.0/16")
    assert allowed.allows("https://shop.example.com/") and allowed.allows("https://a.b.example.org/")
    assert not allowed.allows("https://example.org.evil.test/") and not allowed.allows("https://evil-example.org/")
    assert allowed.allows("http://10.1.2.3/") and not allowed.allows("http://10.2.0.1/")
    with pytest.raises(ValueError, match="'http://x/'"):
        HostAllowList.parse("http://x/")


@pytest.fixture(scope="module")
def target():
    """A loopback page that counts its visits, and a redirector pointing at it by IP address."""
    hits = []

    async def page(request):
        hits.append(request.url.path)
        return HTMLResponse(PAGE)

    with serve(Starlette(routes=[Route("/page", page)])) as url:
        redirect_to = f"{url}/page"

        async def bounce(request):
            return RedirectResponse(redirect_to)

        with serve(Starlette(routes=[Route("/go", bounce)])) as bouncer:
            yield {"page": redirect_to, "bouncer": bouncer.replace("127.0.0.1", "localhost") + "/go", "hits": hits}


def experiment(url: str) -> dict:
    return {"name": "fetch", "variants": [{"name": "A", "page": {"url": url}},
                                          {"name": "B", "page": {"simplified_html": PAGE}}]}


def refusal(client, url: str) -> str:
    response = client.post("/experiments", json=experiment(url))
    assert response.status_code == 422, response.text
    return re.sub(r"could not fetch \S+", "could not fetch URL", str(response.json()["detail"]))


def test_experiment_fetches_outside_the_list_and_after_redirects_are_refused_alike(tmp_path, target):
    with TestClient(create_app(Settings(data_dir=tmp_path / "a", allowed_hosts="localhost"))) as client:
        before = len(target["hits"])
        redirected = refusal(client, target["bouncer"])  # localhost is allowed; the redirect to 127.0.0.1 is not
        assert len(target["hits"]) == before, "the redirect target was fetched"
        closed_port = refusal(client, f"http://localhost:{free_port()}/")
        metadata = refusal(client, "http://169.254.169.254/latest/meta-data/")
        not_found = refusal(client, target["page"].replace("127.0.0.1", "localhost") + "-missing")
        assert redirected == closed_port == metadata == not_found
        assert "TWINSIM_ALLOWED_HOSTS" in metadata and "Connect" not in metadata and "404" not in not_found
    with TestClient(create_app(Settings(data_dir=tmp_path / "b"))) as client:  # the default: loopback
        response = client.post("/experiments", json=experiment(target["bouncer"]))
        assert response.status_code == 422 and "population is empty" in response.text  # no personas stored here
        assert target["hits"][before:] == ["/page"]  # but the page was fetched, through the redirect


def test_simulations_start_only_on_allowed_hosts(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path))) as client:
        response = client.post("/simulations", json={"url": "http://169.254.169.254/", "personas": ["a"]})
        assert response.status_code == 422 and "TWINSIM_ALLOWED_HOSTS" in response.text


def test_a_bad_allowed_hosts_setting_is_a_settings_error(tmp_path):
    with pytest.raises(ValueError, match="neither a host name"):
        Settings(data_dir=tmp_path, allowed_hosts="https://shop.example.com/")
