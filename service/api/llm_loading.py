"""How long a request waits for litellm's start-up import, and the answer a request that cannot fall back gets.

The service imports litellm in a thread at start-up (agent/llm/offline_litellm.py): seconds at load 1, over 10 s
under load. A prediction or interview asked for brain=llm before it is done waits `LLM_LOAD_WAIT_S`, then answers
with the embedded brain and says why (the LLM client's `load_wait_s`). An LLM experiment cannot fall back at
submission (its cost is counted in the model's tokens, its provider probed): it is refused with a 503 and a
Retry-After instead of holding the request for the import.
"""

from __future__ import annotations

from fastapi import HTTPException, status

from agent.llm.offline_litellm import wait_for_litellm
from service.api.schemas import error

LLM_LOAD_WAIT_S = 2.0
RETRY_AFTER_S = 5

STILL_LOADING: dict[int | str, dict] = {
    503: {
        **error("brain=llm in the first seconds after start-up: the LLM client is still loading; try again."),
        "headers": {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}},
    }
}


async def require_llm_client() -> None:
    """503 with Retry-After when litellm is still loading after `LLM_LOAD_WAIT_S`."""
    if not await wait_for_litellm(LLM_LOAD_WAIT_S):
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            "the LLM client is still loading (seconds after start-up); try again shortly",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
