"""One object that calls any chat model through litellm: retries, a concurrency bound, a cache, costs.

Each `LLMClient` carries its own endpoint, limits and totals; there is no module-level provider, so two
experiments (or two tenants) in one process never share settings or bills. Models are named the way
litellm names them: "openai/NAME" with `api_base` for any OpenAI-compatible server (vLLM, llama.cpp,
LM Studio, the test server), "ollama/llama3", "anthropic/claude-...", "gpt-4.1", ...

Offline by construction: litellm's price map is read from the copy inside the package (never fetched),
and nothing here counts tokens with a tokenizer that could download its vocabulary.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import weakref
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential, wait_random

from agent.llm.cache import CachedResponse, ResponseCache, cache_key
from agent.llm.offline_litellm import load_litellm, missing_credentials, wait_for_litellm
from agent.llm.provider_lock import ProviderLock
from agent.llm.provider_slots import Slots, provider_key
from agent.usage import Usage

# A key for keyless local servers: the OpenAI SDK refuses to send a request without one.
_PLACEHOLDER_KEY = "sk-no-key-required"


class LLMCallError(Exception):
    """A model call failed for good (after retries when the failure was transient)."""

    def __init__(self, reason: str, *, attempts: int, retryable: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts
        self.retryable = retryable


@dataclass(frozen=True)
class Completion:
    """One answer: its text, what it cost, and whether it came from the cache."""

    text: str
    model: str
    usage: Usage
    cached: bool = False
    attempts: int = 0
    latency_s: float = 0.0  # wall time of the call, retries and waits included (0 for a cache hit)


@dataclass
class LLMTotals:
    """Running totals for a client: what a run cost and how often the cache saved a call."""

    calls: int = 0  # answered provider calls (billed)
    attempts: int = 0  # HTTP attempts, retries included
    failures: int = 0  # calls that failed for good
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            "failures": self.failures,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cost_usd": self.cost_usd,
        }


def is_retryable(exc: BaseException) -> bool:
    """Timeouts, connection errors, rate limits and 5xx are worth another try; auth and other 4xx are not."""
    litellm = load_litellm()
    if isinstance(exc, (asyncio.TimeoutError, litellm.Timeout, litellm.RateLimitError)):
        return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in (408, 409, 429) or status >= 500
    return isinstance(exc, (litellm.APIConnectionError, ConnectionError))


def describe_failure(exc: BaseException, attempts: int, timeout_s: float) -> str:
    """A short reason a person can act on; never the provider's whole error dump."""
    tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
    if isinstance(exc, (asyncio.TimeoutError, load_litellm().Timeout)):
        return f"timeout after {tries} ({timeout_s:g} s each)"
    status = getattr(exc, "status_code", None)
    message = " ".join(str(getattr(exc, "message", None) or exc).split())[:160]
    if isinstance(status, int):
        if status in (401, 403):
            return f"authentication refused (HTTP {status}): {message}"
        return f"HTTP {status} after {tries}: {message}"
    return f"{type(exc).__name__} after {tries}: {message}"


def _call_cost(response: object) -> float:
    """litellm's price for this response from its bundled map; unknown models (local servers) cost 0."""
    try:
        return float(load_litellm().completion_cost(completion_response=response) or 0.0)
    except Exception:  # noqa: BLE001 - ModelNotMappedError and friends: cost lookup must never fail a prediction
        return 0.0


@dataclass
class LLMClient:
    """Calls `litellm.acompletion` with retries (exponential backoff with jitter), at most
    `concurrency` requests in flight, an optional response cache, and running totals."""

    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0
    retries: int = 2  # extra attempts after the first, on transient failures only
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0
    concurrency: int = 8  # requests in flight at once, per event loop
    max_tokens: int | None = 1024
    cache: ResponseCache | None = None
    extra_params: dict = field(default_factory=dict)
    provider_lock: ProviderLock | None = None  # a shared service: only the configured provider (provider_lock.py)
    slots: Slots | None = None  # calls in flight per provider: the process's, or a Ray cluster's (provider_slots.py)
    # How long a call waits for litellm's import (offline_litellm.py) before failing; None: as long as it takes (the
    # command line, batch runs). A service's request client sets a bound, so no request pays for the import.
    load_wait_s: float | None = None
    totals: LLMTotals = field(default_factory=LLMTotals)

    def __post_init__(self) -> None:
        if self.retries < 0:
            raise ValueError("retries must be 0 or more")
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        # One semaphore per event loop: asyncio primitives bind to the loop that first waits on them.
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    async def complete(
        self,
        model: str,
        messages: list[dict],
        *,
        temperature: float | None = 0.0,
        seed: int | None = None,
        cacheable: Callable[[str], bool] | None = None,
        response_format: dict | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """Return the model's answer text, or raise LLMCallError with a short reason.

        `cacheable(text)` decides whether an answer may be stored (e.g. only answers that parse), so a
        bad answer is asked again on the next run instead of being replayed forever. `response_format` asks
        for a schema-constrained answer (agent/llm/answer_schema.py); `max_tokens` lowers the client's cap.
        """
        self._refused_provider(model)
        key = cache_key(model, messages, temperature, seed, response_format) if self.cache is not None else None
        if key is not None and self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.totals.cache_hits += 1
                return Completion(text=hit.text, model=hit.model, usage=Usage(), cached=True)

        await self._wait_for_litellm()  # after the cache: a replayed answer needs no litellm
        self._missing_credentials(model)
        attempts = 0
        started = time.perf_counter()

        async def attempt() -> object:
            nonlocal attempts
            attempts += 1
            self.totals.attempts += 1
            async with self._semaphore(), self._provider_slot(model, self.timeout_s + 1.0):
                # A hard deadline over litellm's own timeout, so a stuck transport cannot hang a twin.
                return await asyncio.wait_for(
                    self._acompletion(model, messages, temperature, seed, response_format, max_tokens),
                    self.timeout_s + 1.0,
                )

        try:
            retrying = AsyncRetrying(
                stop=stop_after_attempt(self.retries + 1),
                wait=wait_exponential(multiplier=self.backoff_initial_s, max=self.backoff_max_s)
                + wait_random(0, self.backoff_initial_s),
                retry=retry_if_exception(is_retryable),
                reraise=True,
            )
            response: object = await retrying(attempt)
        except Exception as exc:
            self.totals.failures += 1
            raise LLMCallError(
                describe_failure(exc, attempts, self.timeout_s), attempts=attempts, retryable=is_retryable(exc)
            ) from exc

        completion = self._to_completion(response, model, attempts, time.perf_counter() - started)
        if key is not None and self.cache is not None and (cacheable is None or cacheable(completion.text)):
            self.cache.put(
                key,
                CachedResponse(
                    text=completion.text,
                    model=completion.model,
                    prompt_tokens=completion.usage.prompt_tokens,
                    completion_tokens=completion.usage.completion_tokens,
                    cost_usd=completion.usage.cost_usd,
                ),
            )
        return completion

    async def prepare(self, model: str) -> None:
        """Raise LLMCallError, at once and with no call made, when `model` cannot be called from here now: a
        provider this service refuses, or litellm still loading past `load_wait_s` (a request never imports it)."""
        self._refused_provider(model)
        await self._wait_for_litellm()

    def _refused_provider(self, model: str) -> None:
        refused = self.provider_lock.refusal(model) if self.provider_lock is not None else None
        if refused is not None:  # never reaches litellm, so no address a request names is called
            self.totals.failures += 1
            raise LLMCallError(refused, attempts=0, retryable=False)

    async def _wait_for_litellm(self) -> None:
        if not await wait_for_litellm(self.load_wait_s):
            self.totals.failures += 1
            reason = "the LLM client is still loading (seconds after start-up); try again shortly"
            raise LLMCallError(reason, attempts=0, retryable=True)

    def _missing_credentials(self, model: str) -> None:
        """With no base or key configured, a provider whose key (or OLLAMA_API_BASE) is not in the environment is
        refused before any call: litellm would otherwise retry a call that cannot succeed for seconds."""
        missing = None if self.api_base or self.api_key else missing_credentials(model)
        if missing:
            self.totals.failures += 1
            reason = f"no credentials for {model}: set {missing}, or TWINSIM_LLM_API_KEY / TWINSIM_LLM_API_BASE"
            raise LLMCallError(reason, attempts=0, retryable=False)

    def _provider_slot(self, model: str, hold_s: float) -> AbstractAsyncContextManager[None]:
        if self.slots is None:
            return contextlib.nullcontext()
        return self.slots.slot(provider_key(model, self.api_base), hold_s)

    def __getstate__(self) -> dict:
        """A client travels (to a Ray worker) without what binds it to this process: its per-loop semaphores
        (rebuilt there), its response cache (a file here) and its totals; its provider slots go as their limits."""
        return {**self.__dict__, "_semaphores": None, "cache": None, "totals": LLMTotals()}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._semaphores = weakref.WeakKeyDictionary()

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = self._semaphores[loop] = asyncio.Semaphore(self.concurrency)
        return semaphore

    async def _acompletion(
        self,
        model: str,
        messages: list[dict],
        temperature: float | None,
        seed: int | None,
        response_format: dict | None = None,
        max_tokens: int | None = None,
    ) -> object:
        params: dict = {
            "model": model,
            "messages": messages,
            "timeout": self.timeout_s,
            "max_retries": 0,  # retries are ours (tenacity); the OpenAI SDK would otherwise add its own
            "num_retries": 0,
            "drop_params": True,  # providers without seed/temperature support ignore them instead of failing
        }
        if self.api_base:
            params["api_base"] = self.api_base
        api_key = self.api_key or (
            _PLACEHOLDER_KEY
            if self.api_base and model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY")
            else None
        )
        if api_key:
            params["api_key"] = api_key
        if temperature is not None:
            params["temperature"] = temperature
        if seed is not None:
            params["seed"] = seed
        limit = (
            min(t for t in (self.max_tokens, max_tokens) if t is not None) if (self.max_tokens or max_tokens) else None
        )
        if limit is not None:
            params["max_tokens"] = limit
        if response_format is not None:
            params["response_format"] = response_format
        params.update(self.extra_params)
        return await load_litellm().acompletion(**params)

    def _to_completion(self, response: object, model: str, attempts: int, latency_s: float = 0.0) -> Completion:
        choices = getattr(response, "choices", None) or []
        text = (choices[0].message.content if choices else None) or ""
        usage_block = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage_block, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage_block, "completion_tokens", 0) or 0)
        cost = _call_cost(response)
        usage = Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
            cost_usd=cost,
            calls=1,
        )
        self.totals.calls += 1
        self.totals.prompt_tokens += prompt_tokens
        self.totals.completion_tokens += completion_tokens
        self.totals.cost_usd += cost
        return Completion(text=text, model=model, usage=usage, attempts=attempts, latency_s=latency_s)
