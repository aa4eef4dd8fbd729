"""A Ray worker's twin sessions take turns on one kept Chromium (agent/browser/kept_browser.py), with real
Chromium: the second session reuses the first one's browser instead of launching another, each session's context is
its own, browsers launched differently (fonts for pictures) or guarded by another allow list are kept apart, and a
browser that died is started again for the next session."""

from __future__ import annotations

import pytest

from agent.allowed_hosts import HostAllowList
from agent.browser.kept_browser import KeptBrowsers

pytestmark = pytest.mark.integration


async def contexts_seen(browser) -> tuple[int, int]:
    """What a session finds (contexts already open) and which browser it got."""
    before = len(browser.contexts)
    context = await browser.new_context()
    await context.add_cookies([{"name": "cart", "value": "1", "url": "http://127.0.0.1/"}])
    await context.close()
    return before, id(browser)


def test_sessions_take_turns_on_one_browser_and_a_dead_one_is_started_again():
    kept = KeptBrowsers()
    first = kept.run(contexts_seen, pictures=False, allowed=None)
    second = kept.run(contexts_seen, pictures=False, allowed=None)
    assert first == second and first[0] == 0  # the same browser, and nothing of the first session left in it
    assert kept.launches == 1

    guarded = kept.run(contexts_seen, pictures=False, allowed=HostAllowList.parse("127.0.0.1"))
    with_fonts = kept.run(contexts_seen, pictures=True, allowed=None)
    assert len({first[1], guarded[1], with_fonts[1]}) == 3 and kept.launches == 3

    async def crash(browser) -> None:
        await browser.close()

    kept.run(crash, pictures=False, allowed=None)
    again = kept.run(contexts_seen, pictures=False, allowed=None)
    assert again[0] == 0 and kept.launches == 4


def test_a_browser_started_ahead_serves_the_next_session_and_close_ends_it():
    import asyncio
    import threading

    kept = KeptBrowsers()
    kept.start(pictures=False, allowed=None)
    kept.start(pictures=False, allowed=None)  # a second start while the first launches: still one browser
    browser = kept.run(lambda b: asyncio.sleep(0, result=b), pictures=False, allowed=None)
    assert kept.launches == 1 and browser.is_connected()

    def loop_threads() -> int:  # other tests' kept browsers may still have theirs
        return sum(t.name == "kept-browser" for t in threading.enumerate())

    running = loop_threads()
    kept.close()
    assert not browser.is_connected() and loop_threads() == running - 1
    again = kept.run(contexts_seen, pictures=False, allowed=None)  # a new loop and a new browser after a close
    assert again[0] == 0 and kept.launches == 2
    kept.close()
