"""What the browser costs a live step at least, in CPU: the operations every step of `twinsim simulate` makes on a
server-rendered shop (a click that loads the next page, the wait for it, the page read back), each repeated on the
demo shop with the project's own Chromium settings, and timed in wall time and in CPU time per process (this Python
process, Playwright's driver, and Chromium's browser, renderer, GPU and network processes, from /proc).

Why: the live-speed target is set in steps a second on 2 cores, so the CPU a step needs bounds it. A navigation to
even an empty page costs Chromium's processes tens of milliseconds of CPU here; whatever twinsim does around it, a
step cannot cost less than its navigation plus its click and read. This prints that floor beside the end-to-end
figure of benchmarks/live_speed.py.

Each Chromium installed is measured, one after the other: the headless shell twins browse with and the full
browser (in headless mode) it replaced, so the JSON shows what the choice saves.

    python benchmarks/browser_step_cost.py [--repeat 40]  ->  benchmarks/results/browser_step_cost.json
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import time
from collections.abc import Awaitable, Callable

from _common import write_result
from _process_cpu import own_tree_cpu
from live_speed import DemoShop
from playwright.async_api import async_playwright

from agent.browser import chromium
from agent.browser.chromium import launch
from agent.browser.context_pool import TwinTabs
from agent.browser.navigation import NavigationWatch, Timeouts, settle
from agent.browser.snapshot import SnapshotTaker


async def measure(repeat: int, operation: Callable[[int], Awaitable[object]]) -> dict:
    before, started = own_tree_cpu(), time.perf_counter()
    for i in range(repeat):
        await operation(i)
    wall, after = time.perf_counter() - started, own_tree_cpu()
    cpu = {k: round(1000 * (after[k] - before.get(k, 0.0)) / repeat, 1) for k in after if k in before}
    shop = cpu.pop("python", 0.0)  # the demo shop's server, a Python process this benchmark started
    return {
        "wall_ms": round(1000 * wall / repeat, 1),
        "cpu_ms": cpu,
        "cpu_ms_total": round(sum(cpu.values()), 1),
        "shop_server_cpu_ms": shop,
    }


async def run(repeat: int) -> dict:
    with DemoShop() as shop:
        home = shop.url
        async with async_playwright() as playwright:
            browser = await launch(playwright, pictures=False)
            tabs = TwinTabs(browser, reuse=True)
            async with tabs.tab() as (page, _guard):
                await page.goto(home)
                watch, timeouts, reader = NavigationWatch(page), Timeouts(), SnapshotTaker(15)

                async def click_into_product(_i: int) -> None:
                    await page.goto(home, wait_until="load")
                    watch.reset()
                    await page.locator("h3 a").first.click()
                    await settle(page, timeouts, watch)

                async def goto_home(_i: int) -> None:
                    await page.goto(home, wait_until="load")

                def read(_i: int) -> Awaitable[object]:
                    return reader.take(page)

                def settled(_i: int) -> Awaitable[object]:
                    return settle(page, timeouts, watch)

                results = {
                    "round_trip (evaluate 1)": await measure(repeat, lambda _i: page.evaluate("1")),
                    "navigate to about:blank": await measure(repeat, lambda _i: page.goto("about:blank")),
                    "navigate to the shop's home page (load)": await measure(repeat, goto_home),
                    "settle (one frame, nothing in flight)": await measure(repeat, settled),
                    "read the page (snapshot + simplify + observe)": await measure(repeat, read),
                    "home page, then click into a product and settle": await measure(repeat, click_into_product),
                }
                watch.detach()
            await tabs.close()
            await browser.close()
    navigate = results["navigate to the shop's home page (load)"]["cpu_ms_total"]
    click = results["home page, then click into a product and settle"]["cpu_ms_total"] - navigate
    read = results["read the page (snapshot + simplify + observe)"]["cpu_ms_total"]
    return {
        "operations": results,
        "floor_cpu_ms_per_step": {
            "click that loads the next page, settled": round(click, 1),
            "read the page": read,
            "total (no decision, no twin start or end)": round(click + read, 1),
        },
    }


LABELS = {"chromium-headless-shell": "headless_shell", "chromium": "full_chromium"}  # the JSON's names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    load_before, default = os.getloadavg()[0], chromium.chromium_path()
    by_browser = {}
    for name in chromium.FALLBACKS:  # the headless shell, then the full browser: the ones chromium_path() looks for
        if path := shutil.which(name):
            chromium.CHROMIUM_PATH = path  # what launch() starts
            by_browser[LABELS[name]] = {"executable": path, **asyncio.run(run(args.repeat))}
    write_result(
        "browser_step_cost",
        {
            "command": f"python benchmarks/browser_step_cost.py --repeat {args.repeat}",
            "repeat": args.repeat,
            "load_average": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
            "shop": "the demo shop (twinsim shop), server-rendered, one picture a page",
            "twins_browse_with": default,
            "browsers": by_browser,
        },
    )


if __name__ == "__main__":
    main()
