"""Every request a twin's browser makes is judged by the host allow-list: on every page of every context (the
twin's tab, windows the site opens, their frames and workers), redirect hops included.

How: the DevTools Fetch domain, enabled once on the browser itself. Enabled there (not per page), it pauses every
request of the browser before it is sent, from a window's very first one, and each hop of a redirect as a request of
its own; each is continued when agent.allowed_hosts allows it and failed as BlockedByClient when not (the page then
shows Chromium's error, and a start page that cannot load is the run's failure).

Why not Playwright's `route()`: it does not see redirect hops, it is set per context or page (so a window the site
opens could send its first request before being guarded), it turns the context's HTTP cache off, and with a per-page
Fetch guard beside it every request made two round trips to this process. One browser-wide pause per request, with
the cache kept, costs far less of a live step.

Every request is judged as the browser makes it (the address resolved then), so a name that resolves elsewhere
later is judged again then.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from playwright.async_api import Browser, BrowserContext, CDPSession, Page, Request
from playwright.async_api import Error as PlaywrightError

from agent.allowed_hosts import HostAllowList

LOCAL_SCHEMES = ("data:", "blob:", "about:")  # no network: nothing to judge
REFUSED = "net::ERR_BLOCKED_BY_CLIENT"  # how a request the guard failed is reported to the page


class BrowserGuard:
    """Judges every request of one browser against one allow list."""

    def __init__(self, cdp: CDPSession, allowed: HostAllowList) -> None:
        self.allowed = allowed
        self._cdp = cdp
        self._tasks: set[asyncio.Task] = set()

    @classmethod
    async def attach(cls, browser: Browser, allowed: HostAllowList) -> BrowserGuard:
        guard = cls(await browser.new_browser_cdp_session(), allowed)
        guard._cdp.on("Fetch.requestPaused", guard._on_paused)
        await guard._cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
        return guard

    def _on_paused(self, event: dict) -> None:
        task = asyncio.ensure_future(self._judge(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def allows(self, url: str) -> bool:
        """Judged here when the URL alone decides (an address, a listed name); a name that must be resolved is
        resolved in a worker thread, so a slow DNS answer never holds the event loop."""
        if url.startswith(LOCAL_SCHEMES):
            return True
        verdict = self.allowed.allows_without_lookup(url)
        return verdict if verdict is not None else await asyncio.to_thread(self.allowed.allows, url)

    async def _judge(self, event: dict) -> None:
        request = {"requestId": event["requestId"]}
        try:
            if await self.allows(event["request"]["url"]):
                await self._cdp.send("Fetch.continueRequest", request)
            else:
                await self._cdp.send("Fetch.failRequest", {**request, "errorReason": "BlockedByClient"})
        except PlaywrightError:
            pass  # the page, its context or the browser closed while the request waited


_guards: weakref.WeakKeyDictionary[Browser, asyncio.Future[BrowserGuard]] = weakref.WeakKeyDictionary()


async def guard_browser(browser: Browser, allowed: HostAllowList) -> BrowserGuard:
    """The browser's guard, attached on first use; a browser is guarded by one allow list for its whole life."""
    if browser not in _guards:
        _guards[browser] = asyncio.ensure_future(BrowserGuard.attach(browser, allowed))
    guard = await _guards[browser]
    if guard.allowed != allowed:
        raise ValueError("this browser is already guarded by another allow list: launch one per list")
    return guard


class RequestGuard:
    """What the browser's guard refused in one context (its twin's tab and any window the site opened from it):
    `blocked` lists the URLs, redirect hops by the address they led to."""

    def __init__(self, context: BrowserContext) -> None:
        self.blocked: list[str] = []
        context.on("requestfailed", self._on_failed)

    def _on_failed(self, request: Request) -> None:
        if request.failure == REFUSED:
            self.blocked.append(request.url)


async def guarded_context(
    browser: Browser, allowed: HostAllowList | None, **options: Any
) -> tuple[BrowserContext, Page, RequestGuard | None]:
    """A new browser context (and its first page) whose every request, on every page it opens, is judged."""
    if allowed is not None:
        await guard_browser(browser, allowed)  # before the context exists: nothing it sends goes unjudged
    context = await browser.new_context(**options)
    guard = RequestGuard(context) if allowed is not None else None
    return context, await context.new_page(), guard
