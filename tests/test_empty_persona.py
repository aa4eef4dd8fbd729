"""A persona stored with no memories works everywhere a persona does: memories recall (empty), /predict (decides
from the profile and says it has no memories), interviews (say so), and an experiment over the whole population.
Once such a persona made every one of these a 500 (reshaping an empty array of recall vectors)."""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient

from agent.interview import NO_MEMORIES_ANSWER
from agent.memory_recall import NO_MEMORIES
from personas.open_store import open_memory_store
from personas.persona import Persona
from service.api.app import create_app
from service.settings import Settings
from tests.conftest import page
from tests.support.chroma_server import ChromaServer

PRODUCT_URL = "https://www.amazon.com/dp/B0TWINSIM1"


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path))) as test_client:
        yield test_client


def test_a_persona_with_no_memories_is_answered_everywhere(client):
    created = client.post("/personas", json={"id": "empty1"})
    assert created.status_code == 201 and created.json()["memories"] == 0

    recalled = client.get("/personas/empty1/memories", params={"q": "running shoes", "k": 5})
    assert recalled.status_code == 200 and recalled.json() == []

    predicted = client.post(
        "/predict",
        json={
            "persona_id": "empty1",
            "page": {"simplified_html": page("search_results.html"), "url": "https://www.amazon.com/s?k=usb+c+cable"},
        },
    )
    assert predicted.status_code == 200, predicted.text
    body = predicted.json()
    assert body["memories"] == [] and body["details"]["memories"] == NO_MEMORIES
    assert body["action"]["type"] in ("click", "input", "terminate") and body["rationale"]

    asked = client.post("/personas/empty1/interview", json={"question": "Why do you read reviews?"})
    assert asked.status_code == 200, asked.text
    assert asked.json()["answer"] == NO_MEMORIES_ANSWER and asked.json()["memories"] == []


def test_a_persona_with_memories_is_not_said_to_have_none(client, opera_dir):
    record = json.loads((opera_dir / "personas.jsonl").read_text().splitlines()[0])
    pid = client.post("/personas", json=record).json()["id"]
    predicted = client.post("/predict", json={"persona_id": pid}).json()
    assert predicted["memories"] and "memories" not in predicted["details"]
    asked = client.post(f"/personas/{pid}/interview", json={"question": "Why do you read reviews?"}).json()
    assert NO_MEMORIES_ANSWER not in asked["answer"]


def test_an_experiment_over_the_whole_population_with_an_empty_persona_finishes(client, opera_dir):
    record = json.loads((opera_dir / "personas.jsonl").read_text().splitlines()[0])
    assert client.post("/personas", json=record).status_code == 201
    assert client.post("/personas", json={"id": "empty1"}).status_code == 201
    variants = [
        {"name": name, "page": {"simplified_html": page("product_page.html"), "page_url": PRODUCT_URL}}
        for name in ("A", "B")
    ]
    response = client.post(
        "/experiments", json={"name": "empty persona", "variants": variants, "samples_per_persona": 2, "seed": 1}
    )
    assert response.status_code == 202, response.text
    deadline = time.monotonic() + 300  # a guard against hanging, not a speed assertion
    while (body := client.get(f"/experiments/{response.json()['id']}").json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    assert body["status"] == "done", body


def test_the_chroma_server_store_recalls_nothing_for_a_persona_with_no_memories(tmp_path):
    with ChromaServer(tmp_path / "chroma") as chroma:
        store = open_memory_store(url=chroma.url)
        assert store.put_persona(Persona(id="empty1")) == 0
        assert store.recall("empty1", "running shoes", k=5) == []
        assert store.list_memories("empty1") == []
