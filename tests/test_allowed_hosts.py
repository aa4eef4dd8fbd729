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
    for url in (
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://192.168.1.1:8080/",
        "file:///etc/passwd",
        "gopher://127.0.0.1/",
        "http://no-such-host.invalid/",
        "http:///x",
    ):
        assert not allowed.allows(url), url


def test_names_wildcards_and_networks():
    allowed = HostAllowList.parse("shop.example.com, *.example.org, 10.1.0.0/16")
    assert allowed.allows("https://shop.example.com/") and allowed.allows("https://a.b.example.org/")
    assert not allowed.allows("https://example.org.evil.test/") and not allowed.allows("https://evil-example.org/")
    assert allowed.allows("http://10.1.2.3/") and not allowed.allows("http://10.2.0.1/")
    with pytest.raises(ValueError, match="'http://x/'"):
        HostAllowList.parse("http://x/")


def test_only_a_name_off_the_list_needs_resolving():
    """The browser guard judges on the event loop what the URL alone decides, and resolves only the rest in a
    worker thread; both ways give the same verdict."""
    allowed = HostAllowList.parse("shop.example.com, 10.1.0.0/16")
    decided = {
        "http://10.1.2.3/": True,
        "http://10.2.0.1/": False,
        "https://shop.example.com/cart": True,
        "file:///etc/passwd": False,
        "http://[::ffff:10.1.0.9]/": True,
    }
    for url, verdict in decided.items():
        assert allowed.allows_without_lookup(url) is verdict, url
        assert allowed.allows(url) is verdict, url
    assert allowed.allows_without_lookup("http://localhost/") is None
    assert allowed.allows_without_lookup("http://other.example.com/") is None
    assert not allowed.allows("http://localhost/")  # resolves to 127.0.0.1, off the list


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
    return {
        "name": "fetch",
        "variants": [{"name": "A", "page": {"url": url}}, {"name": "B", "page": {"simplified_html": PAGE}}],
    }


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


# (url, allowed by "127.0.0.2,shop.example.com"): judged on the host Chromium would load (WHATWG URL standard)
TRICKY = [
    ("http://127.0.0.3:8000\\@127.0.0.2:8000/start", False),  # backslash: the browser's host is 127.0.0.3
    ("http://127.0.0.2:8000\\@127.0.0.3:8000/start", True),
    ("http://127.0.0.3:8000/\\@127.0.0.2:8000/", False),
    ("http://user@127.0.0.2/", False),  # credentials in the URL are refused
    ("http://127.0.0.3:80@127.0.0.2/", False),
    ("HTTP://SHOP.Example.COM/", True),  # upper-case scheme and mixed-case host
    ("http://shop.example.com./", True),
    ("http://%73hop.example.com/", True),  # percent-encoded host decodes to the listed name
    ("http://%31%32%37.0.0.3/", False),
    ("http://%31%32%37.0.0.2/", True),
    ("http://2130706434/", True),  # 127.0.0.2 as one decimal number
    ("http://2130706435/", False),
    ("http://0x7f.2/", True),  # hex and short IPv4 forms
    ("http://0x7f.3/", False),
    ("http://0177.0.0.2/", True),  # octal
    ("http://[::1]/", False),
    ("http://[::ffff:127.0.0.3]/", False),
    ("http://127.0.0.2.nip.io/", False),  # a name that embeds the address is a name
    ("http://127.0.0.\t3/", False),  # tabs and newlines are dropped by the browser
    ("http://127.0.0.\n2/", True),
    ("http://shop.exa\tmple.com/", True),
    ("javascript:alert(1)", False),
    ("file:///etc/passwd", False),
    ("http://[::1/", False),  # not parsable
    ("http://", False),
]


@pytest.mark.parametrize("url,allowed", TRICKY)
def test_tricky_urls_are_judged_on_the_host_a_browser_loads(url, allowed):
    assert HostAllowList.parse("127.0.0.2,shop.example.com").allows(url) is allowed


def test_ipv6_in_brackets_and_the_list_in_brackets():
    allowed = HostAllowList.parse("[::1]")
    assert allowed.allows("http://[::1]:8000/") and allowed.allows("http://[0:0::1]/")
    assert not allowed.allows("http://[::2]/")


def test_public_admits_only_globally_routable_addresses():
    allowed = HostAllowList.parse("public")
    assert allowed.allows("http://8.8.8.8/") and allowed.allows("http://[2001:4860::8888]/")
    for url in (
        "http://127.0.0.1/",
        "http://localhost/",
        "http://0x7f.1/",
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "http://192.168.0.1/",
        "http://169.254.169.254/",
        "http://100.64.0.1/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://0.0.0.0/",
        "http://[::1]/",
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:10.0.0.1]/",
    ):
        assert not allowed.allows(url), url


def test_the_backslash_probe_is_refused_by_the_simulation_precheck(tmp_path):
    with serve(Starlette(routes=[Route("/start", lambda r: HTMLResponse(PAGE))])) as url:
        port = url.rsplit(":", 1)[1]
        with TestClient(create_app(Settings(data_dir=tmp_path / "a", allowed_hosts="127.0.0.2"))) as client:
            probe = f"http://127.0.0.1:{port}\\@127.0.0.2:{port}/start"
            response = client.post("/simulations", json={"url": probe, "personas": ["p1"]})
            assert response.status_code in (400, 422) and "allowed host" in response.text, response.text
