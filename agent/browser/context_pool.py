"""Where a twin's browser tab comes from: a fresh context per twin, or a context (and its tab) handed on from the
twin before, wiped between them.

Why reuse: opening a context and its first tab starts a renderer process and costs more than a step of a
server-rendered shop; a kept tab on the same site keeps its renderer and the HTTP cache (stylesheets, scripts,
images: only speed, not what a page says). What a twin leaves behind that could change what the next one sees is
wiped: cookies (a cart, a session), every origin's storage the tab saw (local and session storage, IndexedDB,
cache storage, service workers), windows the site opened, and the page itself (about:blank). Visited-link colours
survive a wipe, and a picture would show them: when a report or the brain takes screenshots, every twin gets a fresh
context instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, CDPSession, Page, Response
from playwright.async_api import Error as PlaywrightError

from agent.allowed_hosts import HostAllowList
from agent.browser.chromium import VIEWPORT
from agent.browser.request_guard import RequestGuard, guarded_context

CONTEXT_OPTIONS = {"viewport": VIEWPORT, "locale": "en-US", "timezone_id": "UTC"}
WIPE_TIMEOUT_S = 5.0  # then the tab is closed instead of handed on
_CLEAR_TAB_STORAGE = "() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} }"


class _Tab:
    def __init__(self, context: BrowserContext, page: Page, cdp: CDPSession | None, guard: RequestGuard | None) -> None:
        self.context, self.page, self.cdp, self.guard = context, page, cdp, guard
        self.origins: set[str] = set()
        page.on("response", self._seen)

    def _seen(self, response: Response) -> None:
        parts = urlsplit(response.url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")


async def _open_tab(browser: Browser, reuse: bool, allowed: HostAllowList | None) -> _Tab:
    context, page, guard = await guarded_context(browser, allowed, **CONTEXT_OPTIONS)
    return _Tab(context, page, await context.new_cdp_session(page) if reuse else None, guard)


class TwinTabs:
    """Tabs for twins: `async with tabs.tab() as (page, guard)` gives a twin a page of its own for its whole
    session, and the guard that judges its requests (None without an allow list).
    `reuse`: hand a wiped tab on to the next twin (at most as many kept as twins ran at once). `allowed`: every
    request of every tab (redirect hops too) must be on an allowed host (agent/browser/request_guard.py)."""

    def __init__(self, browser: Browser, *, reuse: bool, allowed: HostAllowList | None = None) -> None:
        self.browser = browser
        self.reuse = reuse
        self.allowed = allowed
        self._kept: list[_Tab] = []

    @asynccontextmanager
    async def tab(self) -> AsyncIterator[tuple[Page, RequestGuard | None]]:
        tab = self._kept.pop() if self._kept else await _open_tab(self.browser, self.reuse, self.allowed)
        if tab.guard is not None:
            tab.guard.blocked.clear()  # what the twin before was refused is not this twin's
        clean = False
        try:
            yield tab.page, tab.guard
            clean = self.reuse and await _wipe(tab)
        finally:
            if clean:
                self._kept.append(tab)
            else:
                await _close(tab)

    async def close(self) -> None:
        while self._kept:
            await _close(self._kept.pop())


async def _wipe(tab: _Tab) -> bool:
    """Leave nothing of this twin for the next; False (close the tab instead) when any part fails."""
    try:  # bounded: a page held by a navigation that never arrives blocks a script until it does
        await asyncio.wait_for(tab.page.evaluate(_CLEAR_TAB_STORAGE), WIPE_TIMEOUT_S)
        for other in tab.context.pages:  # windows the site opened: the next twin starts with its tab alone
            if other is not tab.page:
                await other.close()
        await tab.page.goto("about:blank")
        await tab.context.clear_cookies()
        assert tab.cdp is not None  # only a reused tab is wiped, and it has its CDP session (_open_tab)
        for origin in sorted(tab.origins):
            await tab.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        tab.origins.clear()
        return not tab.page.is_closed()
    except (PlaywrightError, TimeoutError):
        return False


async def _close(tab: _Tab) -> None:
    with contextlib.suppress(PlaywrightError):  # the browser is already gone
        await tab.context.close()
