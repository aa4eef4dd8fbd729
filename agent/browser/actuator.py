"""Doing what a twin chose on the live page: find the element its name came from, then click it, or
type into it and press Enter.

The name is looked up in the reading the twin decided on. If the page has changed since (a script
re-rendered it, a client-side navigation replaced it), the page is read again and the name looked up
there; a name that is gone is a `name_missing` failure, not an exception out of the simulation.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from agent.actions import Action
from agent.browser.failures import StepFailure
from agent.browser.navigation import NavigationWatch, Timeouts
from agent.browser.snapshot import PageSnapshot, SnapshotTaker, selector_for

_TAG_NAMES = "selector => Array.from(document.querySelectorAll(selector), el => el.tagName)"


async def _locate(page: Page, snapshot: PageSnapshot, name: str, reader: SnapshotTaker) -> tuple[Locator, str]:
    """The element and its tag name (how it is acted on), found and named in one round trip to the page.

    Why a plain `page.evaluate` and not the locator's: a locator's evaluation loads Playwright's selector engine
    into the page's own world, once per document; the marker is a plain attribute, so the page's querySelectorAll
    finds it, and the click then needs that engine only in Playwright's isolated world."""
    marker = snapshot.marker(name)
    if marker is not None and len(tags := await page.evaluate(_TAG_NAMES, selector_for(marker))) == 1:
        return page.locator(selector_for(marker)), tags[0]
    marker = (await reader.take(page)).marker(name)
    if marker is None or len(tags := await page.evaluate(_TAG_NAMES, selector_for(marker))) != 1:
        raise StepFailure("name_missing", f"'{name}' is not on the page any more ({page.url})")
    return page.locator(selector_for(marker)), tags[0]


async def perform(
    page: Page,
    snapshot: PageSnapshot,
    action: Action,
    reader: SnapshotTaker,
    timeouts: Timeouts,
    watch: NavigationWatch | None = None,
) -> None:
    """Click, type and submit, or choose a drop-down's option. Raises StepFailure; terminate never reaches here.
    With the page's watch: Playwright holds a click (or Enter) until the document it leads to starts arriving, within
    the action's deadline; a site slower than that still has navigation_ms to answer, and one that does not answer
    is a `timeout` naming the address, never a wait for the site (reading a page held by a pending navigation
    blocks until it arrives)."""
    if action.type == "terminate":
        raise ValueError("terminate is not performed on the page")
    sent = watch.requested if watch is not None else 0
    try:
        locator, tag = await _locate(page, snapshot, action.name, reader)
        if action.type == "input" and tag == "SELECT":
            await locator.select_option(label=action.text, timeout=timeouts.action_ms)  # a drop-down's option
        elif action.type == "input":
            await locator.fill(action.text, timeout=timeouts.action_ms)
            await locator.press("Enter", timeout=timeouts.action_ms)
        elif tag == "OPTION":
            await _choose_option(locator, timeouts)
        else:
            await locator.click(timeout=timeouts.action_ms)
    except PlaywrightTimeout:
        if watch is not None and watch.requested != sent and watch.navigations:  # it landed; the site is slow
            if await watch.arrived(timeouts.navigation_ms / 1000):
                return
            waiting = next(iter(watch.navigations.values()), page.url)
            raise StepFailure("timeout", f"{waiting} did not answer within {timeouts.navigation_ms} ms") from None
        # The element may have vanished while Playwright waited for it: tell that apart from a slow page.
        try:
            fresh = await asyncio.wait_for(reader.take(page), timeouts.navigation_ms / 1000)
        except (TimeoutError, PlaywrightError):
            raise StepFailure(
                "timeout", f"could not {action.type} '{action.name}', nor read {page.url} again, in time"
            ) from None
        if fresh.marker(action.name) is None:
            raise StepFailure(
                "name_missing",
                f"'{action.name}' disappeared from {page.url} before it could be "
                f"{'clicked' if action.type == 'click' else 'typed into'}",
            ) from None
        raise StepFailure(
            "timeout", f"could not {action.type} '{action.name}' within {timeouts.action_ms} ms"
        ) from None
    except PlaywrightError as error:
        raise StepFailure("browser_error", f"{action.type} '{action.name}': {str(error).splitlines()[0]}") from None


async def _choose_option(locator: Locator, timeouts: Timeouts) -> None:
    """An <option> is chosen through its <select>, as a person picking from a drop-down does."""
    value = await locator.evaluate("o => o.value")
    await locator.locator("xpath=ancestor::select[1]").select_option(value=value, timeout=timeouts.action_ms)
