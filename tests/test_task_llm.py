"""The LLM brain with a task: POST /predict with brain=llm, litellm over real HTTP to the loopback
OpenAI-compatible server (tests/support/openai_server.py); the request states the task, fenced as data."""

from __future__ import annotations

import csv
import json

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings
from tests.conftest import page

pytestmark = pytest.mark.integration

SAMSUNG = "search_results.samsung_original_25w_usb_c_to_usb_c_cable_3_3ft_white.product_name"


@pytest.fixture
def client(tmp_path, llm_server, opera_dir):
    settings = Settings(
        data_dir=tmp_path,
        llm_api_base=llm_server.base_url,
        llm_model="openai/twin-test",
        llm_timeout_s=30.0,
        llm_retries=0,
    )
    with TestClient(create_app(settings)) as test_client:
        csv.field_size_limit(10**9)
        with open(opera_dir / "users_sample.csv", newline="") as users:
            row = next(csv.DictReader(users))
        assert test_client.post("/personas", json=row).status_code == 201
        test_client.persona_id = row["user_id"]
        yield test_client


def test_the_request_states_the_task_and_the_page_is_ranked_by_it(client, llm_server):
    """The task is inside its own fence (its success criteria are not shown); the page's elements overflow the
    prompt's budget, so the ones kept are those most relevant to the task, and the product it names is among them."""
    llm_server.enqueue(
        json.dumps({"rationale": "That is the cable I came for.", "action": {"type": "click", "name": SAMSUNG}})
    )
    response = client.post(
        "/predict",
        json={
            "persona_id": client.persona_id,
            "brain": "llm",
            "page": {"simplified_html": page("search_results.html"), "url": "https://www.amazon.com/s?k=usb+c+cable"},
            "task": {"goal": "buy the Samsung 25W USB-C cable in white", "success": {"url": "*/dp/B0SAMSUNG*"}},
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["action"] == {"type": "click", "name": SAMSUNG}
    assert body["brain"] == "llm" and body["fallback_used"] is False, body["fallback_reason"]
    [request] = llm_server.requests
    user = request["messages"][1]["content"]
    assert "# What you came to do\n<<<TASK>>>\nbuy the Samsung 25W USB-C cable in white\n<<<END TASK>>>" in user
    assert "B0SAMSUNG" not in user
    assert "more elements not shown, the least relevant to the task)" in user
    assert f"{SAMSUNG} | click | product_link" in user
    assert "what the person came to do" in request["messages"][0]["content"]


def test_without_a_task_the_prompt_has_no_task_block(client, llm_server):
    llm_server.enqueue(json.dumps({"rationale": "Just looking.", "action": {"type": "terminate"}}))
    response = client.post(
        "/predict",
        json={
            "persona_id": client.persona_id,
            "brain": "llm",
            "page": {"simplified_html": page("search_results.html")},
        },
    )
    assert response.status_code == 200, response.text
    user = llm_server.requests[-1]["messages"][1]["content"]
    assert "<<<TASK>>>" not in user
    assert "more elements not shown)" in user and "least relevant to the task" not in user  # trimmed, not ranked
