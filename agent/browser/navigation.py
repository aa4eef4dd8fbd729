"""Following the main frame: which document the last navigation loaded and with what HTTP status, and
waiting until a page has settled: the document an action sent the frame to has arrived, it has loaded, then no
request of its own is left in flight (when it gets there).

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
from playwright.async_api import Frame, Page, Request, Response
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
        self.navigations: dict[Request, str] = {}  # main-frame documents asked for and not yet shown, by their URL
        self._arrived = asyncio.Event()
        self._arrived.set()
        self.arrivals = 0  # documents the main frame has shown (framenavigated)
        self.requested = 0  # documents the main frame was sent to (navigation requests, redirect hops too)
        page.on("response", self._on_response)
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_done)
        page.on("requestfailed", self._on_done)
        page.on("framenavigated", self._on_navigated)

    def detach(self) -> None:
        """Stop following the page (a kept tab is handed on to the next twin with a watch of its own)."""
        for event, handler in (
            ("response", self._on_response),
            ("request", self._on_request),
            ("requestfinished", self._on_done),
            ("requestfailed", self._on_done),
            ("framenavigated", self._on_navigated),
        ):
            self._page.remove_listener(event, handler)

    def _on_request(self, request: Request) -> None:
        self.in_flight.add(request)
        self._quiet.clear()
        if request.is_navigation_request() and request.frame == self._page.main_frame:
            self.navigations[request] = request.url
            self.requested += 1
            self._arrived.clear()

    def _on_done(self, request: Request) -> None:
        self.in_flight.discard(request)
        if not self.in_flight:
            self._quiet.set()
        if self.navigations.pop(request, None) is not None and not self.navigations:
            self._arrived.set()  # answered without a new document (a download, a 204) or failed (an error page)

    def _on_navigated(self, frame: Frame) -> None:
        if frame == self._page.main_frame:
            self.arrivals += 1
            self.navigations.clear()
            self._arrived.set()

    async def arrived(self, timeout_s: float) -> bool:
        """Until the main frame shows the document it was sent to (True), or `timeout_s` passed (False)."""
        try:
            await asyncio.wait_for(self._arrived.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

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
    network idle (500 ms without traffic) stands in. With one, a document the main frame was sent to (by the action,
    or by the page while it settles) must arrive within navigation_ms, else a failure: the page read next is the new
    one however slowly the site answers, never the old one or one torn down mid-read."""
    if watch is None:
        await _loaded(page, timeouts)
        with contextlib.suppress(PlaywrightTimeout):
            await page.wait_for_load_state("networkidle", timeout=timeouts.idle_ms)
        return
    give_up = time.monotonic() + (timeouts.navigation_ms + timeouts.idle_ms) / 1000  # a page that never stops moving
    quiet_by: float | None = None
    while True:
        await _arrived(page, timeouts, watch)
        await _loaded(page, timeouts)
        quiet_by = quiet_by or time.monotonic() + timeouts.idle_ms / 1000
        moving, arrivals = False, watch.arrivals
        try:  # one frame: what the page starts on load (fetches, timers at 0) is started by then
            await asyncio.wait_for(page.evaluate(_NEXT_FRAME), max(0.05, quiet_by - time.monotonic()))
        except (TimeoutError, PlaywrightError):
            moving = True  # navigating again, or a page too busy to paint
        if not moving and watch.in_flight and await watch.quiet(quiet_by - time.monotonic()):
            continue  # quiet: one more frame, for what the last answers started
        if not ((watch.navigations or watch.arrivals != arrivals) and time.monotonic() < give_up):
            return  # loaded, and quiet or as quiet as it gets
        # the main frame went, or is on its way, to another document: wait for that one


async def _arrived(page: Page, timeouts: Timeouts, watch: NavigationWatch) -> None:
    if not await watch.arrived(timeouts.navigation_ms / 1000):
        waiting = next(iter(watch.navigations.values()), page.url)
        raise StepFailure("timeout", f"{waiting} did not answer within {timeouts.navigation_ms} ms")


async def _loaded(page: Page, timeouts: Timeouts) -> None:
    try:
        await page.wait_for_load_state("load", timeout=timeouts.navigation_ms)
    except PlaywrightTimeout:
        raise StepFailure("timeout", f"{page.url} did not finish loading within {timeouts.navigation_ms} ms") from None


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
