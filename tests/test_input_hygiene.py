"""Input that used to crash the API (500) is a 422 with a reason, and nothing is stored:
a lone UTF-16 surrogate anywhere in a JSON body, and paging numbers beyond SQLite's integers."""

from __future__ import annotations

import csv
import json

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings

SURROGATE = "\ud800"


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path))) as test_client:
        yield test_client


@pytest.fixture
def persona_id(client, opera_dir):
    csv.field_size_limit(10**9)
    with open(opera_dir / "users_sample.csv", newline="") as users:
        row = next(csv.DictReader(users))
    response = client.post("/personas", json=row)
    assert response.status_code == 201
    return response.json()["id"]


def post_json(client, path: str, body: dict):
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def assert_refused(response, where: str):
    assert response.status_code == 422, response.text
    assert "surrogate" in response.text and where in response.text


def test_a_lone_surrogate_in_a_persona_is_refused_and_not_stored(client):
    record = {"id": "maria-lopez", "name": "Maria", "self_description": f"I buy {SURROGATE} online."}
    assert_refused(post_json(client, "/personas", record), "body.self_description")
    assert client.get("/personas/maria-lopez").status_code == 404
    assert_refused(post_json(client, "/personas", {"id": "maria-lopez", SURROGATE: "x"}), "<key>")


def test_a_lone_surrogate_in_a_memory_is_refused_and_not_stored(client, persona_id):
    before = client.get(f"/personas/{persona_id}/memories", params={"k": 200}).json()
    assert_refused(post_json(client, f"/personas/{persona_id}/memories", {"text": f"bad {SURROGATE}"}), "body.text")
    assert client.get(f"/personas/{persona_id}/memories", params={"k": 200}).json() == before


@pytest.mark.parametrize(
    "body, where",
    [
        ({"persona_id": SURROGATE}, "body.persona_id"),
        ({"persona_id": "x", "brain": SURROGATE}, "body.brain"),
        ({"persona_id": "x", "page": {"simplified_html": f"<p>{SURROGATE}</p>"}}, "body.page.simplified_html"),
        (
            {"persona_id": "x", "history": [{"action": {"type": "click", "name": SURROGATE}}]},
            "body.history.0.action.name",
        ),
    ],
)
def test_a_lone_surrogate_in_a_prediction_is_refused(client, body, where):
    assert_refused(post_json(client, "/predict", body), where)


def test_a_lone_surrogate_in_a_simulation_or_experiment_is_refused(client):
    assert_refused(post_json(client, "/simulations", {"url": SURROGATE, "personas": ["a"]}), "body.url")
    assert_refused(post_json(client, "/experiments", {"name": SURROGATE}), "body.name")
    assert client.get("/experiments").json() == []


def test_a_valid_surrogate_pair_is_ordinary_text(client, persona_id):
    response = post_json(client, f"/personas/{persona_id}/memories", {"text": "I loved the \U0001f600 mug."})
    assert response.status_code == 201 and "\U0001f600" in response.json()["text"]


@pytest.mark.parametrize("path", ["/experiments", "/personas"])
@pytest.mark.parametrize("param", ["offset", "limit"])
def test_paging_beyond_its_bounds_is_422(client, path, param):
    response = client.get(path, params={param: 99999999999999999999999})
    assert response.status_code == 422 and param in response.text
    assert client.get(path, params={"offset": 1_000_000_000}).json() == []
