"""A page may open other pages (window.open, a target=_blank link, a window opened blank and sent somewhere): none
of their requests reaches a host off the list (agent/browser/request_guard.py). An allowed page on 127.0.0.1 that
opens 127.0.0.2 (off the list), directly or through a redirect of an allowed page, never reaches 127.0.0.2: the
browser-wide guard judges a new window's requests from its first one, whether it was opened with an address or blank
and sent on, and each of them is reported as refused in the twin's context."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import async_playwright
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.routing import Route

from agent.allowed_hosts import HostAllowList
from agent.browser.chromium import launch
from agent.browser.request_guard import guarded_context
from tests.support.live_server import serve

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sites():
    outside_hits: list[str] = []

    async def anything(request):
        outside_hits.append(request.url.path)
        return HTMLResponse("<html><body>admin</body></html>")

    with serve(Starlette(routes=[Route("/{path:path}", anything)]), host="127.0.0.2") as outside:

        async def opener(request):
            target = request.query_params["to"]
            return HTMLResponse(
                f'<html><body><a id="link" target="_blank" href="{target}">open</a>'
                f'<script>window.open("{target}?by=script");'
                f'const w = window.open(""); w.location.href = "{target}?by=blank";</script></body></html>'
            )

        async def bounce(request):
            return RedirectResponse(f"{outside}/bounced", status_code=302)

        with serve(Starlette(routes=[Route("/opener", opener), Route("/bounce", bounce)])) as inside:
            yield {"inside": inside, "outside": outside, "hits": outside_hits}


async def open_popups(start: str) -> list[str]:
    async with async_playwright() as playwright:
        browser = await launch(playwright)
        try:
            context, page, guard = await guarded_context(browser, HostAllowList.parse("127.0.0.1"))
            await page.goto(start)
            await page.click("#link")
            for _ in range(30):  # the popups' requests are refused, not hanging: give them time to be tried
                if len(guard.blocked) >= 3:
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)
            await context.close()
            return guard.blocked
        finally:
            await browser.close()


@pytest.mark.parametrize("how", ["direct", "redirect"])
def test_popups_never_reach_a_host_off_the_list(sites, how):
    sites["hits"].clear()
    target = f"{sites['outside']}/popup" if how == "direct" else f"{sites['inside']}/bounce"
    blocked = asyncio.run(asyncio.wait_for(open_popups(f"{sites['inside']}/opener?to={target}"), 90))
    assert sites["hits"] == []
    assert len(blocked) >= 3, blocked  # the script's window, the blank one sent on, the link's
