"""A shared service (API keys set, or deployed from deploy/) reaches public hosts only unless its operator lists
more, and calls only its configured LLM provider; local use without keys keeps loopback (the demo shop, README)."""

from __future__ import annotations

import pytest
import yaml
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from agent.llm.provider_lock import ProviderLock
from service.api.app import create_app
from service.settings import Settings
from tests.conftest import REPO
from tests.support.live_server import serve

PAGE = '<html><body><button name="buy">Buy</button></body></html>'
KEY = "shared-key"


def test_local_use_keeps_loopback_and_a_shared_service_admits_public_hosts_only(tmp_path):
    local = Settings(data_dir=tmp_path).host_allow_list
    assert local.allows("http://127.0.0.1:8100/") and local.allows("http://localhost/")
    shared = Settings(data_dir=tmp_path, api_key=KEY).host_allow_list
    for url in (
        "http://127.0.0.1:8100/",
        "http://localhost:8000/",
        "http://0x7f.1/",
        "http://169.254.169.254/",
        "http://10.0.0.5/",
        "http://100.64.0.1/",
        "http://[::1]/",
        "http://[fd00::1]/",
    ):
        assert not shared.allows(url), url
    assert shared.allows("http://93.184.216.34/")
    listed = Settings(data_dir=tmp_path, api_key=KEY, allowed_hosts="127.0.0.1").host_allow_list
    assert listed.allows("http://127.0.0.1:8100/")


def test_with_keys_an_experiment_cannot_fetch_an_internal_page(tmp_path):
    hits = []

    async def internal(request):
        hits.append(request.url.path)
        return HTMLResponse('<html><body><p>password: hunter2</p><button name="x">x</button></body></html>')

    with serve(Starlette(routes=[Route("/internal", internal)])) as url:
        spec = {
            "name": "ssrf",
            "variants": [
                {"name": "A", "page": {"url": f"{url}/internal"}},
                {"name": "B", "page": {"simplified_html": PAGE}},
            ],
        }
        app = create_app(Settings(data_dir=tmp_path, api_key=KEY))
        with TestClient(app, headers={"X-API-Key": KEY}) as client:
            response = client.post("/experiments", json=spec)
    assert response.status_code == 422 and "TWINSIM_ALLOWED_HOSTS" in response.text, response.text
    assert hits == []


def test_with_keys_an_interview_naming_another_provider_falls_back_and_says_so(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, api_key=KEY))
    with TestClient(app, headers={"X-API-Key": KEY}) as client:
        assert client.post("/personas", json={"id": "p1"}).status_code == 201
        response = client.post(
            "/personas/p1/interview", json={"question": "Why did you buy it?", "brain": "llm", "model": "ollama/llama3"}
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["brain"] == "embedded" and body["requested_brain"] == "llm"
    assert "refused" in body["fallback_reason"] and "ollama" in body["fallback_reason"]
    assert "11434" not in response.text and "onnect" not in body["fallback_reason"]


def test_deploy_files_default_to_public_hosts():
    compose = yaml.safe_load((REPO / "deploy" / "compose.yaml").read_text())
    api = next(s for s in compose["services"].values() if "TWINSIM_API_KEY" in (s.get("environment") or {}))
    assert api["environment"]["TWINSIM_ALLOWED_HOSTS"] == "${TWINSIM_ALLOWED_HOSTS:-public}"
    deployment = yaml.safe_load((REPO / "deploy" / "kubernetes" / "api-deployment.yaml").read_text())
    env = {e["name"]: e.get("value") for c in deployment["spec"]["template"]["spec"]["containers"] for e in c["env"]}
    assert env["TWINSIM_ALLOWED_HOSTS"] == "public"


@pytest.mark.parametrize(
    "configured,base,model,allowed",
    [
        ("openai/gpt-4.1", None, "openai/gpt-4.1-mini", True),  # the same provider, its default address
        ("openai/gpt-4.1", None, "ollama/llama3", False),  # would call localhost:11434
        ("openai/gpt-4.1", None, "gpt-4.1", False),  # litellm guesses the provider: not ours to guess
        ("gpt-4.1", None, "gpt-4.1", True),
        (None, None, "openai/gpt-4.1", False),  # nothing configured: no provider at all
        (None, "http://127.0.0.1:8001/v1", "ollama/llama3", True),  # every call goes to the configured base
    ],
)
def test_the_provider_lock(configured, base, model, allowed):
    assert (ProviderLock(configured, base).refusal(model) is None) is allowed
