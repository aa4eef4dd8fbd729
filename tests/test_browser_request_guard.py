"""The twin's browser requests only allowed hosts, redirect hops included (agent/browser/request_guard.py):
an allowed page on 127.0.0.1 that redirects to 127.0.0.2 (off the list) never reaches 127.0.0.2, whether the
redirect is the start page itself or an image on an allowed page, and the run fails with the reason, not a hang."""

from __future__ import annotations

import asyncio

import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from agent.allowed_hosts import HostAllowList
from agent.simulation import SimulationConfig, run_simulation
from personas.sources import load_personas
from service.container import build_services
from service.settings import Settings
from tests.conftest import REPO
from tests.support.live_server import serve

pytestmark = pytest.mark.integration
PIXEL = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


@pytest.fixture(scope="module")
def sites():
    """`inside` on 127.0.0.1 (allowed) and `outside` on 127.0.0.2 (not), which counts every request it gets."""
    outside_hits: list[str] = []

    async def anything(request):
        outside_hits.append(request.url.path)
        return HTMLResponse('<html><body><a href="/secret" name="secret">Admin</a></body></html>')

    with serve(Starlette(routes=[Route("/{path:path}", anything)]), host="127.0.0.2") as outside:

        async def start(request):
            return RedirectResponse(f"{outside}/admin", status_code=302)

        async def page(request):
            return HTMLResponse('<html><body><img src="/img"><button name="buy">Buy</button></body></html>')

        async def img(request):
            return RedirectResponse(f"{outside}/pixel.gif", status_code=302)

        async def pixel(request):
            return Response(PIXEL, media_type="image/gif")

        app = Starlette(
            routes=[Route("/start", start), Route("/page", page), Route("/img", img), Route("/pixel.gif", pixel)]
        )
        with serve(app) as inside:
            yield {"inside": inside, "outside": outside, "hits": outside_hits}


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    built = build_services(Settings(data_dir=tmp_path_factory.mktemp("guard")), warm=False)
    for persona in load_personas(REPO / "personas/examples/sam-chen.json"):
        built.store.put_persona(persona)
    return built


def simulate(services, url: str, allowed: str | None):
    config = SimulationConfig(url=url, persona_ids=["sam-chen"], max_steps=1, navigation_timeout_ms=15000)
    personas = [services.store.get_persona("sam-chen")]
    hosts = HostAllowList.parse(allowed) if allowed is not None else None
    return asyncio.run(asyncio.wait_for(run_simulation(config, personas, services.graph, allowed=hosts), 120))


def test_a_start_page_redirecting_off_the_list_never_reaches_the_other_host(services, sites):
    before = len(sites["hits"])
    result = simulate(services, sites["inside"] + "/start", "127.0.0.1")
    assert len(sites["hits"]) == before, f"the browser reached {sites['outside']}: {sites['hits']}"
    failure = result.traces[0].failure
    assert failure is not None and failure.step == 0, result.traces[0]
    assert "BLOCKED_BY_CLIENT" in failure.message and f"refused {sites['outside']}/admin" in failure.message
    assert "TWINSIM_ALLOWED_HOSTS" in failure.message


def test_a_subresource_redirecting_off_the_list_is_refused_while_the_page_loads(services, sites):
    before = len(sites["hits"])
    result = simulate(services, sites["inside"] + "/page", "127.0.0.1")
    assert len(sites["hits"]) == before, f"the browser reached {sites['outside']}: {sites['hits']}"
    assert result.traces[0].steps, result.traces[0]  # the allowed page itself was read and decided on


def test_without_a_list_the_redirect_is_followed(services, sites):
    """The check above can fail: with no list the same start page does reach the other host."""
    before = len(sites["hits"])
    simulate(services, sites["inside"] + "/start", None)
    assert len(sites["hits"]) > before
