"""No request pays for importing litellm, and a service with no LLM configured answers brain=llm at once, offline.

Importing litellm takes seconds (over 10 s under load): a fuzzing run saw the first `brain: llm` interview of a
fresh service time out because it imported litellm inside the request. The service now imports it in a thread at
start-up, whatever its settings, and a request that needs it before the import is done waits a bounded time and
falls back to the embedded brain, saying why.

The first test makes that structural rather than a matter of the machine's speed: the real service process runs
with a `litellm` on its path whose import never finishes in the test's time (it sleeps), so a request that imports
litellm, or waits for its import, cannot answer at all, while one that does neither answers in seconds (an
experiment with brain=llm, which cannot fall back at submission, is refused with a 503 to retry). The second
runs the real litellm: with no key and no api base, a provider's call is refused before any attempt, with the name
of the variable to set, instead of litellm's retries.
"""

from __future__ import annotations

import os
import time

import httpx
import pytest

from tests.support.service_process import ServiceProcess

pytestmark = pytest.mark.integration

NEVER_DONE_IMPORT = "import time\n\ntime.sleep(3600)  # an import that outlasts the test\n"
QUESTION = {"question": "Why would you buy this?", "brain": "llm", "model": "openai/gpt-4o"}
PAGE = "<html><body><button name='buy'>Buy now</button></body></html>"


def test_a_request_never_imports_or_waits_for_litellm(tmp_path):
    slow = tmp_path / "slow" / "litellm"
    slow.mkdir(parents=True)
    (slow / "__init__.py").write_text(NEVER_DONE_IMPORT)
    path = os.pathsep.join(p for p in (str(slow.parent), os.environ.get("PYTHONPATH")) if p)
    env = {"TWINSIM_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": path}
    with ServiceProcess(env) as service:
        assert httpx.post(f"{service.url}/personas", json={"id": "p1"}, timeout=60).status_code == 201

        # 60 s: far beyond the bounded wait, far below the import that never ends
        answer = httpx.post(f"{service.url}/personas/p1/interview", json=QUESTION, timeout=60)
        assert answer.status_code == 200, answer.text
        interview = answer.json()
        assert (interview["brain"], interview["requested_brain"], interview["fallback_used"]) == (
            "embedded",
            "llm",
            True,
        )
        assert "LLM client is still loading" in interview["fallback_reason"]

        body = {"persona_id": "p1", "page": {"html": PAGE}, "brain": "llm", "model": "openai/gpt-4o"}
        predicted = httpx.post(f"{service.url}/predict", json=body, timeout=60)
        assert predicted.status_code == 200, predicted.text
        prediction = predicted.json()
        assert (prediction["brain"], prediction["fallback_used"]) == ("embedded", True)
        assert "LLM client is still loading" in prediction["fallback_reason"]

        # an LLM experiment cannot fall back at submission (its cost is counted in the model's tokens): 503, retry
        experiment = {
            "name": "LLM right after start-up",
            "variants": [{"name": "A", "page": {"simplified_html": PAGE}}, {"name": "B", "page": {"html": PAGE}}],
            "brain": "llm",
            "model": "openai/gpt-4o",
            "population": {"ids": ["p1"]},
        }
        refused = httpx.post(f"{service.url}/experiments", json=experiment, timeout=60)
        assert refused.status_code == 503, refused.text
        assert "still loading" in refused.json()["detail"] and int(refused.headers["Retry-After"]) > 0
        assert httpx.get(f"{service.url}/healthz", timeout=10).status_code == 200


def _answer_once_loaded(url: str, body: dict) -> dict:
    """The interview's answer once litellm's start-up import is done (before that it says it is still loading)."""
    deadline = time.monotonic() + 300
    while True:
        answer = httpx.post(f"{url}/personas/p1/interview", json=body, timeout=60)
        assert answer.status_code == 200, answer.text
        interview = answer.json()
        if "still loading" not in (interview["fallback_reason"] or "") or time.monotonic() > deadline:
            return interview
        time.sleep(1)


@pytest.mark.skipif(
    bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OLLAMA_API_BASE")),
    reason="a provider is configured in this environment",
)
def test_no_key_and_no_base_falls_back_before_any_call(tmp_path):
    with ServiceProcess({"TWINSIM_DATA_DIR": str(tmp_path)}) as service:
        assert httpx.post(f"{service.url}/personas", json={"id": "p1"}, timeout=60).status_code == 201
        for model, variable in (("openai/gpt-4o", "OPENAI_API_KEY"), ("ollama/llama3", "OLLAMA_API_BASE")):
            interview = _answer_once_loaded(service.url, {**QUESTION, "model": model})
            assert (interview["brain"], interview["fallback_used"]) == ("embedded", True)
            reason = interview["fallback_reason"]
            # refused before litellm was called: no attempts, no retries, no connection to the default address
            assert reason.startswith(f"llm brain failed: {model}: no credentials for {model}: set {variable}"), reason
            assert "attempt" not in reason and "connect" not in reason.lower()
            assert interview["answer"]  # the offline answer, from the profile
