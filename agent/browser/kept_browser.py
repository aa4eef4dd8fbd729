"""One Chromium per process, kept on an event loop thread of its own: across the twin sessions a Ray worker runs,
and, for a CLI run, started while the command still loads the twins' graph and store.

Why: a session on Ray used to start Playwright's driver and a Chromium of its own and close both at its end, the
larger part of Ray's overhead per twin (benchmarks/live_speed.py --ray). A worker process runs one task at a time and
is reused for the run's next sessions, so they take turns on one browser, each in a fresh context of its own (a
context is Chromium's unit of isolation: cookies, storage and HTTP cache are the context's, so nothing one twin did
is seen by the next). The browser lives on an event loop thread of its own, and a browser that died (or whose
driver did) is started again for the next session. Browsers differ by what they are launched with (fonts kept for
pictures) and by the allow list that guards them, so one is kept per such pair.

A `twinsim simulate` run starts Playwright's driver and its Chromium (`start`, about 0.4 s) before it imports the
graph and opens the store (about 2 s on one core), so the browser's start takes the other core instead of the run's
time; it closes them (`close`) when the run is done, so the process then exits with no thread left.
"""

from __future__ import annotations

import asyncio
import contextlib
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
        self._thread: threading.Thread | None = None
        self._launching = asyncio.Lock()  # one launch at a time: a session waits for the one `start` began
        self._playwright: Playwright | None = None
        self._browsers: dict[tuple[bool, HostAllowList | None], Browser] = {}
        self.launches = 0  # Chromiums started by this process: one unless a browser died

    def start(self, *, pictures: bool, allowed: HostAllowList | None) -> None:
        """Start the driver and the browser now, without waiting: the session that comes next finds them started.
        A failure is left for that session's own launch to meet and report."""
        asyncio.run_coroutine_threadsafe(self._browser(pictures, allowed), self._running_loop())

    def run(self, session: Callable[[Browser], Awaitable[T]], *, pictures: bool, allowed: HostAllowList | None) -> T:
        """`session(browser)` on the kept loop; an interrupted caller (Ctrl-C) cancels it there too."""
        future = asyncio.run_coroutine_threadsafe(self._run(session, pictures, allowed), self._running_loop())
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def close(self) -> None:
        """Close the browsers and the driver and end the loop's threads (as asyncio.run would at its end)."""
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._close_all(), loop).result()
        asyncio.run_coroutine_threadsafe(loop.shutdown_default_executor(), loop).result()  # its worker threads
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        self._launching = asyncio.Lock()  # the next loop's

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, name="kept-browser", daemon=True)
                self._thread.start()
            return self._loop

    async def _run(
        self, session: Callable[[Browser], Awaitable[T]], pictures: bool, allowed: HostAllowList | None
    ) -> T:
        return await session(await self._browser(pictures, allowed))

    async def _browser(self, pictures: bool, allowed: HostAllowList | None) -> Browser:
        async with self._launching:
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

    async def _close_all(self) -> None:
        for browser in self._browsers.values():
            with contextlib.suppress(PlaywrightError):
                await browser.close()
        self._browsers.clear()
        if self._playwright is not None:
            with contextlib.suppress(PlaywrightError):
                await self._playwright.stop()
            self._playwright = None

    async def _driver(self) -> Playwright:
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        return self._playwright


KEPT = KeptBrowsers()  # this process's: a Ray worker's sessions share it
