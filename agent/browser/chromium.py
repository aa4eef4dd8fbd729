"""The browser twins use: the system Chromium (installed by `bash scripts/setup --browser`), headless,
with the background traffic switched off. Playwright only drives it; nothing is ever downloaded.

Why the headless shell first: Debian's `chromium-headless-shell` is Chromium's own build for automation, without
the browser's windowing layer; a step's click, page load and read cost it a fifth to a third less CPU than the full
browser in headless mode (benchmarks/browser_step_cost.py), and on two cores a live step is bound by that CPU.
The full `chromium` still serves where the shell is not installed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from playwright.async_api import Browser, Playwright

CHROMIUM_PATH = os.environ.get("TWINSIM_CHROMIUM", "/usr/bin/chromium-headless-shell")
FALLBACKS = ("chromium-headless-shell", "chromium")  # looked up on PATH when CHROMIUM_PATH is not there
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
VIEWPORT = {"width": 1280, "height": 900}


class ChromiumMissing(RuntimeError):
    """No Chromium at the configured path: say how to install it instead of failing deep in Playwright."""


def chromium_path() -> str:
    path = CHROMIUM_PATH if Path(CHROMIUM_PATH).exists() else next(filter(None, map(shutil.which, FALLBACKS)), None)
    if not path:
        raise ChromiumMissing(
            f"no Chromium at {CHROMIUM_PATH}; install it with `bash scripts/setup --browser` "
            "(or set TWINSIM_CHROMIUM to a Chromium binary)"
        )
    return path


async def launch(playwright: Playwright, *, pictures: bool = True) -> Browser:
    """A headless system Chromium through Playwright's async API, refusing what twins never need
    (agent/browser/request_filter.py); `pictures`: whether any screenshot will be taken (fonts are kept for it)."""
    from agent.browser.request_filter import refusing_switches

    return await playwright.chromium.launch(
        executable_path=chromium_path(), args=[*CHROMIUM_ARGS, *refusing_switches(pictures)], headless=True
    )
