"""Following the main frame: which document the last navigation loaded and with what HTTP status, and
waiting until a page has settled (loaded, then network idle for a moment, when it gets there).
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from agent.browsing.failures import StepFailure


@dataclass(frozen=True, slots=True)
class Timeouts:
    navigation_ms: int = 15_000   # a page must load within this
    action_ms: int = 5_000        # a click or a keystroke must land within this
    idle_ms: int = 3_000          # then up to this long for the network to go quiet (not required)


class NavigationWatch:
    """Remembers the status of the latest main-frame document response (redirects: the final one)."""

    def __init__(self, page) -> None:
        self._page = page
        self.status: int | None = None
        self.url: str | None = None
        page.on("response", self._on_response)

    def _on_response(self, response) -> None:
        request = response.request
        if request.is_navigation_request() and request.frame == self._page.main_frame:
            self.status, self.url = response.status, response.url

    def reset(self) -> None:
        self.status = self.url = None

    def raise_if_dead(self) -> None:
        if self.status is not None and self.status >= 400:
            raise StepFailure("dead_link", f"HTTP {self.status} at {self.url}")


async def settle(page, timeouts: Timeouts) -> None:
    """Wait for the load event (a failure past the deadline), then briefly for network idle (best effort)."""
    try:
        await page.wait_for_load_state("load", timeout=timeouts.navigation_ms)
    except PlaywrightTimeout:
        raise StepFailure("timeout", f"{page.url} did not finish loading within {timeouts.navigation_ms} ms") from None
    try:
        await page.wait_for_load_state("networkidle", timeout=timeouts.idle_ms)
    except PlaywrightTimeout:
        pass  # busy pages (polling, analytics) never go idle; loaded is enough


async def open_page(page, url: str, watch: NavigationWatch, timeouts: Timeouts) -> None:
    """Go to the start URL; dead or unreachable pages become failures."""
    try:
        await page.goto(url, wait_until="load", timeout=timeouts.navigation_ms)
    except PlaywrightTimeout:
        raise StepFailure("timeout", f"{url} did not load within {timeouts.navigation_ms} ms") from None
    except PlaywrightError as error:
        raise StepFailure("navigation_failed", f"{url}: {str(error).splitlines()[0]}") from None
    watch.raise_if_dead()
    await settle(page, timeouts)
