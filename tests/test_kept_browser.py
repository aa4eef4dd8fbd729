"""A Ray worker's twin sessions take turns on one kept Chromium (agent/executors/kept_browser.py), with real
Chromium: the second session reuses the first one's browser instead of launching another, each session's context is
its own, browsers launched differently (fonts for pictures) or guarded by another allow list are kept apart, and a
browser that died is started again for the next session."""

from __future__ import annotations

import pytest

from agent.allowed_hosts import HostAllowList
from agent.executors.kept_browser import KeptBrowsers

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
