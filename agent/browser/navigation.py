"""Following the main frame: which document the last navigation loaded and with what HTTP status, and
waiting until a page has settled: loaded, then no request of its own left in flight (when it gets there).

Why by events: Playwright's "networkidle" waits for 500 ms without traffic after every page, which on a
server-rendered shop was half of a live step and told nothing. The watch counts the page's requests from the
browser's own request events instead; once the load event has fired, the page has had a frame to start what
its scripts start after load, and nothing is in flight, it has settled: no fixed delay anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request, Response
from playwright.async_api import TimeoutError as PlaywrightTimeout

from agent.browser.failures import StepFailure


@dataclass(frozen=True, slots=True)
class Timeouts:
    navigation_ms: int = 15_000  # a page must load within this
    action_ms: int = 5_000  # a click or a keystroke must land within this
    idle_ms: int = 3_000  # then up to this long for the network to go quiet (not required)


_NEXT_FRAME = "() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))"


class NavigationWatch:
    """Remembers the status of the latest main-frame document response (redirects: the final one), and which of
    the page's requests are still in flight."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self.status: int | None = None
        self.url: str | None = None
        self.in_flight: set = set()
        self._quiet = asyncio.Event()
        self._quiet.set()
        page.on("response", self._on_response)
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_done)
        page.on("requestfailed", self._on_done)

    def detach(self) -> None:
        """Stop following the page (a kept tab is handed on to the next twin with a watch of its own)."""
        for event, handler in (
            ("response", self._on_response),
            ("request", self._on_request),
            ("requestfinished", self._on_done),
            ("requestfailed", self._on_done),
        ):
            self._page.remove_listener(event, handler)

    def _on_request(self, request: Request) -> None:
        self.in_flight.add(request)
        self._quiet.clear()

    def _on_done(self, request: Request) -> None:
        self.in_flight.discard(request)
        if not self.in_flight:
            self._quiet.set()

    async def quiet(self, timeout_s: float) -> bool:
        """Until nothing is in flight (True), or `timeout_s` passed (False)."""
        try:
            await asyncio.wait_for(self._quiet.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    def _on_response(self, response: Response) -> None:
        request = response.request
        if request.is_navigation_request() and request.frame == self._page.main_frame:
            self.status, self.url = response.status, response.url

    def reset(self) -> None:
        self.status = self.url = None

    def raise_if_dead(self) -> None:
        if self.status is not None and self.status >= 400:
            raise StepFailure("dead_link", f"HTTP {self.status} at {self.url}")


async def settle(page: Page, timeouts: Timeouts, watch: NavigationWatch | None = None) -> None:
    """Wait for the load event (a failure past the deadline), then up to idle_ms for the page's requests to finish
    (best effort: busy pages, polling or streaming, never get there; loaded is enough). Without a watch, Playwright's
    network idle (500 ms without traffic) stands in."""
    try:
        await page.wait_for_load_state("load", timeout=timeouts.navigation_ms)
    except PlaywrightTimeout:
        raise StepFailure("timeout", f"{page.url} did not finish loading within {timeouts.navigation_ms} ms") from None
    if watch is None:
        with contextlib.suppress(PlaywrightTimeout):
            await page.wait_for_load_state("networkidle", timeout=timeouts.idle_ms)
        return
    deadline = time.monotonic() + timeouts.idle_ms / 1000
    while True:
        try:  # one frame: what the page starts on load (fetches, timers at 0) is started by then
            await asyncio.wait_for(page.evaluate(_NEXT_FRAME), max(0.05, deadline - time.monotonic()))
        except (TimeoutError, PlaywrightError):
            return  # navigating again, or a page too busy to paint: loaded is enough
        if not watch.in_flight:
            return
        if not await watch.quiet(deadline - time.monotonic()):
            return


async def open_page(page: Page, url: str, watch: NavigationWatch, timeouts: Timeouts) -> None:
    """Go to the start URL; dead or unreachable pages become failures."""
    try:
        await page.goto(url, wait_until="load", timeout=timeouts.navigation_ms)
    except PlaywrightTimeout:
        raise StepFailure("timeout", f"{url} did not load within {timeouts.navigation_ms} ms") from None
    except PlaywrightError as error:
        raise StepFailure("navigation_failed", f"{url}: {str(error).splitlines()[0]}") from None
    watch.raise_if_dead()
    await settle(page, timeouts, watch)
