"""Every request a twin's browser makes is judged by the host allow-list, redirect hops included, on every page
of its context (popups too).

Playwright's `route()` sees the first request of a navigation but not the hops of a redirect, so a listed page
answering `302 Location: http://10.0.0.5/admin` would take the twin there. The DevTools Fetch domain pauses each
hop as its own request: each is continued when agent.allowed_hosts allows it and failed as BlockedByClient when
not (the page then shows Chromium's error, and a start page that cannot load is the run's failure).

The Fetch domain is enabled per page, so a page the site opens (window.open, target=_blank) would send its first
request before its guard is attached. A context-wide `route()` closes that gap: Playwright holds every new page
until its routes apply, so the route judges each page's requests from the first one and attaches the page's Fetch
guard before letting any through; the hops that follow are the Fetch guard's. Every request is judged as the
browser makes it (the address resolved then), so a name that resolves elsewhere later is judged again then.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from playwright.async_api import Browser, BrowserContext, CDPSession, Page, Request, Route
from playwright.async_api import Error as PlaywrightError

from agent.allowed_hosts import HostAllowList

LOCAL_SCHEMES = ("data:", "blob:", "about:")  # no network: nothing to judge


class RequestGuard:
    """Attached to each page of a twin's browser context; `blocked` lists the URLs it refused."""

    def __init__(self, context: BrowserContext, allowed: HostAllowList) -> None:
        self.context = context
        self.allowed = allowed
        self.blocked: list[str] = []
        self.unopened: list[str] = []  # pages the site opened in new windows, left blank (see `route`)
        self._tasks: set[asyncio.Task] = set()
        self._attached: dict[int, asyncio.Future] = {}

    async def attach(self, page: Page) -> None:
        """Pause every request of `page` until judged. Call before the page loads anything; a second call for
        the same page waits for the first."""
        if id(page) not in self._attached:
            self._attached[id(page)] = asyncio.ensure_future(self._enable(page))
        await self._attached[id(page)]

    async def _enable(self, page: Page) -> None:
        cdp = await self.context.new_cdp_session(page)

        def on_paused(event: dict) -> None:
            task = asyncio.ensure_future(self._judge(cdp, event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        cdp.on("Fetch.requestPaused", on_paused)
        await cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})

    async def allows(self, url: str) -> bool:
        return url.startswith(LOCAL_SCHEMES) or await asyncio.to_thread(self.allowed.allows, url)

    async def route(self, route: Route, request: Request) -> None:
        """The first request of every page of the context (Playwright's route): the page's Fetch guard attached
        before anything is sent, then the request judged."""
        try:
            page = request.frame.page
        except PlaywrightError:  # no frame yet: a window the site opens, or a service worker's request
            page = None
        try:
            if page is None and request.is_navigation_request():
                # a window the site opens asks for its page before the page exists, so before a Fetch guard could
                # judge its redirect hops; twins browse their own tab only, so such a window is left blank
                self.unopened.append(request.url)
                await route.abort("blockedbyclient")
                return
            fresh = page is not None and id(page) not in self._attached
            if page is not None:
                await self.attach(page)
            if not await self.allows(request.url):
                self.blocked.append(request.url)
                await route.abort("blockedbyclient")
            elif fresh and page is not None and request.is_navigation_request():
                # begun before the page's Fetch guard, its redirect hops would go unjudged: start it again
                await route.abort("aborted")
                task = asyncio.ensure_future(_navigate(page, request.url))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            else:
                await route.fallback()
        except PlaywrightError:
            pass  # the page or context closed while the request waited

    async def _judge(self, cdp: CDPSession, event: dict) -> None:
        url = event["request"]["url"]
        try:
            if await self.allows(url):
                await cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
            else:
                self.blocked.append(url)
                await cdp.send("Fetch.failRequest", {"requestId": event["requestId"], "errorReason": "BlockedByClient"})
        except PlaywrightError:
            pass  # the page or context closed while the request waited


async def _navigate(page: Page, url: str) -> None:
    with contextlib.suppress(PlaywrightError):  # refused on the way, or closed: a page the site opened, unwatched
        await page.goto(url)


async def guarded_context(
    browser: Browser, allowed: HostAllowList | None, **options: Any
) -> tuple[BrowserContext, Page, RequestGuard | None]:
    """A new browser context (and its first page) whose every request, on every page it opens, is judged."""
    context = await browser.new_context(**options)
    guard = RequestGuard(context, allowed) if allowed is not None else None
    if guard is not None:  # every page, those the site opens (target=_blank, window.open) too, from its first request
        await context.route("**/*", guard.route)
    page = await context.new_page()
    if guard is not None:
        await guard.attach(page)
    return context, page, guard
