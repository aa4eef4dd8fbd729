"""What a screenshot adds to one LLM call: request bytes, prompt tokens (as litellm counts them), the time to build
and encode the request (set-of-marks: drawing the boxes too), and the round trip through litellm to the loopback
OpenAI-compatible server. Writes benchmarks/results/screenshot_cost.json.

The pages are real and rendered in headless Chromium at 1280x800: the demo shop's search results, and the shared raw
amazon.com search-results page (../shared/data/pages, served to the browser from the file; its images and styles are not
fetched, so it renders as text); the screenshot taken by Playwright, the elements' boxes read from the live page. The
same prompt is built four
ways: text only (twinsim's default), with the screenshot, with set-of-marks boxes, with both (SeeAct's strategies,
Zheng et al. 2024, arXiv 2401.01614).

Honest limits: the loopback server runs no model, so the round trip is transport only (encoding, HTTP, litellm's
own work); a real vision model spends its own time on the image, which this cannot measure. Image tokens are
litellm's count for gpt-4o, whose rule is OpenAI's published one: 85 tokens for a low-detail image (litellm's
count when no detail is given) and 85 + 170 per 512-px tile for high detail; other providers count differently.

Run: .venv/bin/python benchmarks/screenshot_cost.py [--calls 40]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import dataclasses
import json
import os
import statistics
import time

from _common import SHARED_OPERA, percentile, write_result

from agent.brains.llm import LLMBrain
from agent.browser.chromium import launch
from agent.browser.snapshot import SnapshotTaker, selector_for
from agent.llm.client import LLMClient
from agent.llm.offline_litellm import load_litellm
from agent.page.observation import Observation
from agent.prediction_input import PredictionInput
from agent.screenshots import read_screenshot
from agent.twin_context import TwinContext
from personas.persona import Persona
from service.demo_shop import create_shop_app
from tests.support.live_server import serve
from tests.support.openai_server import OpenAICompatibleServer

MODEL = "openai/twin-test"  # the loopback server's model; vision forced with vision="always"
TOKEN_MODEL = "gpt-4o"  # the model whose image-token rule litellm applies for the count
SIZE = {"width": 1280, "height": 800}
VARIANTS = {
    "text only": ("names", False),
    "screenshot": ("names", True),
    "set-of-marks": ("set_of_marks", True),
    "textual choices + set-of-marks": ("both", True),
}
SHARED_PAGES = SHARED_OPERA.parent / "pages"  # ../shared/data/pages
ANSWER = '{"rationale": "I look at the first result.", "action": {"type": "terminate"}}'


AMAZON_URL = "https://www.amazon.com/s?k=usb+c+cable"


async def render_page(source: str) -> tuple[bytes, Observation]:
    """A page at 1280x800 in headless Chromium: its screenshot, and the page with its elements' boxes (read from the
    live page). `source` "demo": the demo shop's results for 'usb c cable'; "amazon": the shared raw amazon.com
    results page, served to the browser from the file (every other request is refused: nothing is fetched)."""
    from playwright.async_api import async_playwright

    with serve(create_shop_app()) as shop:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            try:
                page = await (await browser.new_context(viewport=SIZE)).new_page()
                if source == "amazon":
                    html = (SHARED_PAGES / "amazon_search_results.html").read_text(errors="replace")

                    async def offline(route):
                        if route.request.url == AMAZON_URL:
                            await route.fulfill(body=html, content_type="text/html; charset=utf-8")
                        else:
                            await route.abort()

                    await page.route("**/*", offline)
                    await page.goto(AMAZON_URL, wait_until="domcontentloaded")
                else:
                    await page.goto(shop + "/s?k=usb+c+cable")
                snapshot = await SnapshotTaker().take(page)
                image = await page.screenshot()
                boxed = []
                for candidate in snapshot.observation.candidates:
                    marker = snapshot.marker(candidate.name)
                    box = await page.locator(selector_for(marker)).first.bounding_box() if marker else None
                    bbox = (box["x"], box["y"], box["width"], box["height"]) if box else None
                    boxed.append(dataclasses.replace(candidate, bbox=bbox))
            finally:
                await browser.close()
    observation = dataclasses.replace(snapshot.observation, candidates=tuple(boxed), by_name={c.name: c for c in boxed})
    return image, observation


def tokens(messages: list[dict], detail: str | None) -> int:
    messages = copy.deepcopy(messages)
    for message in messages:
        if isinstance(message["content"], list):
            for part in message["content"]:
                if part.get("type") == "image_url" and detail:
                    part["image_url"]["detail"] = detail
    return load_litellm().token_counter(model=TOKEN_MODEL, messages=messages)


async def build_costs(brain: LLMBrain, ctx: TwinContext, server: OpenAICompatibleServer, calls: int) -> dict:
    """The prompt alone (set-of-marks: the boxes drawn), and what one request carries."""
    build_ms = []
    for _ in range(calls):
        started = time.perf_counter()
        messages, _, details = await brain.prompt(ctx, MODEL)
        build_ms.append((time.perf_counter() - started) * 1000)
    server.reset()
    await brain.decide(ctx)
    return {
        "details": {k: v for k, v in details.items() if k in ("grounding", "screenshot")},
        "request_bytes": len(json.dumps(server.requests[-1]).encode()),
        "prompt_tokens_litellm_default": tokens(messages, None),
        "prompt_tokens_litellm_high_detail": tokens(messages, "high"),
        "build_ms_p50": round(statistics.median(build_ms), 2),
        "build_ms_p95": round(percentile(build_ms, 95), 2),
    }


async def decide_costs(runs: dict[str, tuple[LLMBrain, TwinContext]], calls: int) -> dict[str, list[float]]:
    """The whole decision (prompt, request through litellm, answer parsed), the variants taken in turn each round,
    so that load from other processes falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(calls):
        for name, (brain, ctx) in runs.items():
            started = time.perf_counter()
            await brain.decide(ctx)
            times[name].append((time.perf_counter() - started) * 1000)
    return times


async def page_costs(source: str, calls: int, server: OpenAICompatibleServer) -> dict:
    image, observation = await render_page(source)
    read_screenshot(image)  # warm (Pillow's import)
    check_ms = []
    for _ in range(10):
        started = time.perf_counter()
        screenshot = read_screenshot(image)
        check_ms.append((time.perf_counter() - started) * 1000)
    persona = Persona(id="bench", self_description="I compare prices before I buy.")
    runs: dict[str, tuple[LLMBrain, TwinContext]] = {}
    results = {}
    for name, (grounding, with_image) in VARIANTS.items():
        brain = LLMBrain(
            LLMClient(api_base=server.base_url, retries=0), default_model=MODEL, grounding=grounding, vision="always"
        )
        ctx = TwinContext.on_page(persona, observation, PredictionInput(screenshot=screenshot if with_image else None))
        runs[name] = (brain, ctx)
        await build_costs(brain, ctx, server, 3)  # warm up (imports, connection)
        results[name] = await build_costs(brain, ctx, server, calls)
    for name, times in (await decide_costs(runs, calls)).items():
        results[name].update(
            decide_ms_p50=round(statistics.median(times), 2), decide_ms_p95=round(percentile(times, 95), 2)
        )
    base = results["text only"]
    for row in results.values():
        row["added_vs_text_only"] = {
            key: round(row[key] - base[key], 2)
            for key in (
                "request_bytes",
                "prompt_tokens_litellm_default",
                "prompt_tokens_litellm_high_detail",
                "build_ms_p50",
                "decide_ms_p50",
            )
        }
    in_view = [c for c in observation.candidates if c.bbox and c.bbox[1] < SIZE["height"] and c.bbox[2] > 0]
    return {
        "screenshot": {
            "width": screenshot.width,
            "height": screenshot.height,
            "png_bytes": len(screenshot.data),
            "base64_chars": len(screenshot.data_url()),
            "check_decode_ms_p50": round(statistics.median(check_ms), 2),
        },
        "elements": len(observation.candidates),
        "elements_with_a_box_in_view": len(in_view),
        "variants": results,
    }


async def run(calls: int) -> dict:
    load_before = os.getloadavg()[0]
    with OpenAICompatibleServer(default_reply=ANSWER) as server:
        load_litellm()
        pages = {
            "demo shop search results ('usb c cable')": await page_costs("demo", calls, server),
            "amazon.com search results (shared raw page, rendered offline)": await page_costs("amazon", calls, server),
        }
    return {
        "pages": pages,
        "viewport": SIZE,
        "calls_per_variant": calls,
        "token_model": TOKEN_MODEL,
        "load_average_1m": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "notes": (
            "The loopback server runs no model: decide_ms is the LLM brain's whole decision (prompt build, "
            "encoding, HTTP through litellm, parsing) with an answer that costs the server nothing. Tokens are "
            "litellm.token_counter for gpt-4o: an image with no detail set counts as low detail (85 tokens); "
            "high detail counts 85 + 170 per 512-px tile. The request as sent carries no detail field. "
            "set-of-marks lists no elements in the text, hence fewer text tokens than text only. Times were taken "
            "on a 2-core machine shared with other work (load average below): read them as orders of "
            "magnitude, the bytes and tokens as exact."
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    write_result("screenshot_cost", asyncio.run(run(args.calls)))


if __name__ == "__main__":
    main()
