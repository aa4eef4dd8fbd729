"""Request bodies are capped as they arrive (service/api/body_limit.py): a chunked body (no Content-Length) over the
limit
is a 413, not a body buffered whole in memory; a body under the limit is untouched; either way over the limit, the 413
is the JSON every other refusal is, with the reason."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings


@pytest.fixture
def client(tmp_path):
    with TestClient(
        create_app(Settings(data_dir=tmp_path, max_page_bytes=1_000, max_screenshot_bytes=10_000))
    ) as test_client:
        yield test_client


def chunks(payload: bytes, size: int = 64_000):
    for start in range(0, len(payload), size):  # a generator: httpx sends it chunked, with no Content-Length
        yield payload[start : start + size]


def test_chunked_body_over_the_limit_is_413(client):
    limit = 1_000 * 2 + (10_000 + 2) // 3 * 4 + 512_000  # page twice, screenshot as base64, slack
    body = json.dumps({"persona_id": "ann", "page": {"simplified_html": "<p>x</p>" * (limit // 8 + 10)}}).encode()
    response = client.post("/predict", content=chunks(body), headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json() == {"detail": f"request body over {limit} bytes"}


def test_a_body_announced_over_the_limit_is_a_json_413(client):
    limit = 1_000 * 2 + (10_000 + 2) // 3 * 4 + 512_000
    body = json.dumps({"id": "ann", "self_description": "x" * limit}).encode()
    for path in ("/personas", "/predict", "/experiments", "/simulations"):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 413 and response.headers["content-type"] == "application/json", path
        assert response.json() == {"detail": f"request body over {limit} bytes"}


def test_chunked_body_under_the_limit_goes_through(client):
    body = json.dumps({"id": "ann", "name": "Ann", "self_description": "I buy books."}).encode()
    response = client.post("/personas", content=chunks(body, 10), headers={"content-type": "application/json"})
    assert response.status_code == 201, response.text
