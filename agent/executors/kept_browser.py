"""One Chromium per Ray worker process, kept across the twin sessions the process runs.

Why: a session on Ray used to start Playwright's driver and a Chromium of its own and close both at its end, the
larger part of Ray's overhead per twin (benchmarks/live_speed.py --ray). A worker process runs one task at a time and
is reused for the run's next sessions, so they take turns on one browser, each in a fresh context of its own (a
context is Chromium's unit of isolation: cookies, storage and HTTP cache are the context's, so nothing one twin did
is seen by the next). The browser lives on an event loop thread of its own, and a browser that died (or whose
driver did) is started again for the next session. Browsers differ by what they are launched with (fonts kept for
pictures) and by the allow list that guards them, so one is kept per such pair.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from agent.allowed_hosts import HostAllowList
from agent.browser.chromium import launch

T = TypeVar("T")


class KeptBrowsers:
    """`kept.run(session, pictures=..., allowed=...)` runs `session(browser)` on this process's kept browser."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._playwright: Playwright | None = None
        self._browsers: dict[tuple[bool, HostAllowList | None], Browser] = {}
        self.launches = 0  # Chromiums started by this process: one unless a browser died

    def run(self, session: Callable[[Browser], Awaitable[T]], *, pictures: bool, allowed: HostAllowList | None) -> T:
        return asyncio.run_coroutine_threadsafe(self._run(session, pictures, allowed), self._running_loop()).result()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="kept-browser", daemon=True).start()
            return self._loop

    async def _run(
        self, session: Callable[[Browser], Awaitable[T]], pictures: bool, allowed: HostAllowList | None
    ) -> T:
        return await session(await self._browser(pictures, allowed))

    async def _browser(self, pictures: bool, allowed: HostAllowList | None) -> Browser:
        browser = self._browsers.get((pictures, allowed))
        if browser is not None and browser.is_connected():
            return browser
        try:
            browser = await launch(await self._driver(), pictures=pictures)
        except PlaywrightError:  # the driver itself is gone: start another
            self._playwright = None
            browser = await launch(await self._driver(), pictures=pictures)
        self._browsers[(pictures, allowed)] = browser
        self.launches += 1
        return browser

    async def _driver(self) -> Playwright:
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        return self._playwright


KEPT = KeptBrowsers()  # this process's: a Ray worker's sessions share it
