"""One cheap call to the LLM provider before a run, so a missing key or a dead server stops the run at once
instead of every decision silently falling back to the embedded brain."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from agent.llm.client import LLMCallError, LLMClient

PROBE_MESSAGES = [{"role": "user", "content": 'Answer with {"ok": true} and nothing else.'}]


async def probe_provider(llm: LLMClient, model: str) -> str | None:
    """None when the provider answers; else why not, in one line."""
    try:
        await llm.complete(model, PROBE_MESSAGES, temperature=0.0)
    except LLMCallError as error:
        return str(error)
    except Exception as error:  # noqa: BLE001 - a provider misconfiguration litellm reports in its own way
        return f"{type(error).__name__}: {error}"
    return None


def probe_provider_blocking(llm: LLMClient, model: str) -> str | None:
    """The same from synchronous code, whether or not an event loop runs in this thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, probe_provider(llm, model)).result()
