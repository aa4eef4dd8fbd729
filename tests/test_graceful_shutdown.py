"""Graceful shutdown: SIGTERM (what Kubernetes and `docker stop` send) lets an in-flight /predict finish with
its real answer, then the process exits cleanly; uvicorn's --timeout-graceful-shutdown bounds the wait."""

from __future__ import annotations

import signal
import threading
import time

import httpx
import pytest

from tests.support.openai_server import OpenAICompatibleServer
from tests.support.service_process import ServiceProcess

pytestmark = pytest.mark.integration


def wait_for_the_llm_client(url: str, llm: OpenAICompatibleServer) -> None:
    """Right after start-up the service answers brain=llm with the embedded fallback while litellm loads (seconds;
    agent/llm/offline_litellm.py): ask until the model answers, so the prediction below is the model's."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = httpx.post(f"{url}/predict", json={"persona_id": "ann", "brain": "llm"}, timeout=120).json()
        if body.get("fallback_used") is False:
            llm.reset()
            return
        time.sleep(0.5)
    raise AssertionError("the service's LLM client never became ready")


def test_sigterm_lets_the_in_flight_prediction_finish(tmp_path):
    with OpenAICompatibleServer() as llm:
        env = {
            "TWINSIM_DATA_DIR": str(tmp_path),
            "TWINSIM_LLM_API_BASE": llm.base_url,
            "TWINSIM_LLM_MODEL": "openai/twin-test",
            "TWINSIM_LLM_TIMEOUT_S": "60",
            "TWINSIM_LLM_RETRIES": "0",
        }
        service = ServiceProcess(env, args=("--timeout-graceful-shutdown", "60")).start()
        try:
            persona = {"id": "ann", "name": "Ann", "self_description": "I buy books for my kids."}
            assert httpx.post(f"{service.url}/personas", json=persona, timeout=120).status_code == 201
            wait_for_the_llm_client(service.url, llm)
            llm.enqueue(("sleep", 3.0, '{"rationale": "I have my books.", "action": {"type": "terminate"}}'))
            result: dict = {}

            def call() -> None:
                result["response"] = httpx.post(
                    f"{service.url}/predict", json={"persona_id": "ann", "brain": "llm"}, timeout=120
                )

            caller = threading.Thread(target=call)
            caller.start()
            deadline = time.monotonic() + 60
            while not llm.requests and time.monotonic() < deadline:  # the prediction is now waiting on the model
                time.sleep(0.05)
            assert llm.requests, "the prediction never reached the LLM server"
            service.process.send_signal(signal.SIGTERM)
            caller.join(120)
            exit_code = service.process.wait(timeout=60)
        finally:
            service.stop()
    response = result["response"]
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["fallback_used"] is False and body["brain"] == "llm"
    assert body["rationale"] == "I have my books." and body["action"] == {"type": "terminate"}
    assert exit_code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it has shut down cleanly
    assert "Traceback" not in service.output() and "CancelledError" not in service.output()
