"""Every request a twin's browser makes is judged by the host allow-list, redirect hops included.

Playwright's `route()` sees the first request of a navigation but not the hops of a redirect, so a listed page
answering `302 Location: http://10.0.0.5/admin` would take the twin there. The DevTools Fetch domain pauses each
hop as its own request: each is continued when agent.allowed_hosts allows it and failed as BlockedByClient when
not (the page then shows Chromium's error, and a start page that cannot load is the run's failure).
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Browser, BrowserContext, CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from agent.allowed_hosts import HostAllowList

LOCAL_SCHEMES = ("data:", "blob:", "about:")  # no network: nothing to judge


class RequestGuard:
    """Attached to each page of a twin's browser context; `blocked` lists the URLs it refused."""

    def __init__(self, context: BrowserContext, allowed: HostAllowList) -> None:
        self.context = context
        self.allowed = allowed
        self.blocked: list[str] = []
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

    async def _judge(self, cdp: CDPSession, event: dict) -> None:
        url = event["request"]["url"]
        try:
            if url.startswith(LOCAL_SCHEMES) or await asyncio.to_thread(self.allowed.allows, url):
                await cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
            else:
                self.blocked.append(url)
                await cdp.send("Fetch.failRequest", {"requestId": event["requestId"], "errorReason": "BlockedByClient"})
        except PlaywrightError:
            pass  # the page or context closed while the request waited


async def guarded_context(
    browser: Browser, allowed: HostAllowList | None, **options: Any
) -> tuple[BrowserContext, Page, RequestGuard | None]:
    """A new browser context (and its first page) whose every request, on every page it opens, is judged."""
    context = await browser.new_context(**options)
    guard = RequestGuard(context, allowed) if allowed is not None else None
    if guard is not None:  # pages the site opens (target=_blank, window.open) are guarded as they appear
        context.on("page", lambda opened: asyncio.ensure_future(guard.attach(opened)))
    page = await context.new_page()
    if guard is not None:
        await guard.attach(page)
    return context, page, guard
