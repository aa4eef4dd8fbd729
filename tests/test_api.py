"""The HTTP API on a real store and graph: personas, memories, /predict, and every bad-input path."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings
from tests.conftest import page


@pytest.fixture
def client(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, max_page_bytes=300_000))
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def user_rows(opera_dir):
    import csv

    csv.field_size_limit(10**9)
    with open(opera_dir / "users_sample.csv", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def imported(client, user_rows):
    ids = []
    for row in user_rows:
        response = client.post("/personas", json=row)
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    return ids


def test_import_list_get_delete(client, user_rows, imported):
    assert client.get("/healthz").json()["personas"] == 2
    listed = client.get("/personas").json()
    assert [p["id"] for p in listed] == sorted(imported)
    assert all(p["memories"] > 10 for p in listed)
    body = client.get(f"/personas/{imported[0]}").json()
    assert body["big_five"]["method"] == "ipip50"
    again = client.post("/personas", json=user_rows[0])
    assert again.status_code == 201 and again.json()["replaced"] is True
    assert client.delete(f"/personas/{imported[0]}").status_code == 204
    assert client.get(f"/personas/{imported[0]}").status_code == 404
    assert client.delete(f"/personas/{imported[0]}").status_code == 404


def test_memories_append_and_recall(client, imported):
    pid = imported[0]
    added = client.post(f"/personas/{pid}/memories", json={"text": "I returned a loud blender last month."})
    assert added.status_code == 201
    recalled = client.get(f"/personas/{pid}/memories", params={"q": "noisy kitchen appliance return", "k": 3}).json()
    assert recalled[0]["text"] == "I returned a loud blender last month."
    assert all(m["persona_id"] == pid for m in recalled)
    listed = client.get(f"/personas/{pid}/memories", params={"k": 200}).json()
    assert len(listed) > 10


def test_predict_on_a_realistic_page_names_an_element_of_that_page(client, imported):
    from agent.page.parse import parse_page

    html = page("search_results.html")
    names = set(parse_page(html).by_name)
    response = client.post(
        "/predict",
        json={
            "persona_id": imported[0],
            "page": {"simplified_html": html, "url": "https://www.amazon.com/s?k=usb+c+cable"},
            "history": [
                {
                    "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
                    "rationale": "I need a longer cable for my desk.",
                },
                {"action": {"type": "click", "name": "nav_bar.search_button"}},
            ],
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    action = body["action"]
    assert action["type"] in ("click", "input", "terminate")
    if action["type"] != "terminate":
        assert action["name"] in names
    assert body["rationale"] and body["brain"] == "embedded" and body["fallback_used"] is False
    assert body["memories"] and all(m["persona_id"] == imported[0] for m in body["memories"])
    assert body["latency_ms"] > 0 and body["usage"]["cost_usd"] == 0


def test_page_free_prediction(client, imported):
    response = client.post(
        "/predict",
        json={
            "persona_id": imported[1],
            "history": [{"action": {"type": "input", "name": "nav_bar.search_input", "text": "running shoes"}}],
        },
    )
    assert response.status_code == 200, response.text
    assert response.json()["action"]["type"] in ("click", "input", "terminate")


def test_ablations_are_honoured(client, imported):
    response = client.post("/predict", json={"persona_id": imported[0], "options": {"ablate_memory": True}})
    assert response.status_code == 200 and response.json()["memories"] == []
    response = client.post("/predict", json={"persona_id": imported[0], "options": {"ablate_persona": True}})
    assert response.status_code == 200 and response.json()["memories"] == []


def test_unknown_persona_is_404(client):
    response = client.post("/predict", json={"persona_id": "nobody", "page": {"simplified_html": "<html></html>"}})
    assert response.status_code == 404 and "nobody" in response.json()["detail"]


@pytest.mark.parametrize(
    "record, field",
    [
        ({"id": "bad id!"}, "id"),
        ({"id": "ok", "preferences": {"quality": 9}}, "preferences"),
        ({"id": "ok", "preferences": {"not_a_construct": 3}}, "preferences"),
    ],
)
def test_malformed_persona_is_422_naming_the_field(client, record, field):
    response = client.post("/personas", json=record)
    assert response.status_code == 422
    assert field in json.dumps(response.json()["detail"])


def test_malformed_history_is_422_naming_the_field(client, imported):
    response = client.post("/predict", json={"persona_id": imported[0], "history": [{"action": {"type": "click"}}]})
    assert response.status_code == 422
    assert "name" in json.dumps(response.json()["detail"]) and "history" in json.dumps(response.json()["detail"])
    response = client.post("/predict", json={"persona_id": imported[0], "history": [{"action": {"type": "fly"}}]})
    assert response.status_code == 422


def test_oversized_page_is_413_and_loses_nothing(client, imported):
    big = "<html><body>" + "<div>x</div>" * 40_000 + "</body></html>"
    response = client.post("/predict", json={"persona_id": imported[0], "page": {"simplified_html": big}})
    assert response.status_code == 413
    assert client.get(f"/personas/{imported[0]}").status_code == 200


def test_broken_html_still_predicts(client, imported):
    broken = (
        '<html><body><div name="nav_bar"><input name="nav_bar.search_input" type="text">'
        '<a name="nav_bar.cart_button">Cart'
    )
    response = client.post("/predict", json={"persona_id": imported[0], "page": {"simplified_html": broken}})
    assert response.status_code == 200
    action = response.json()["action"]
    assert action["type"] == "terminate" or action["name"] in ("nav_bar.search_input", "nav_bar.cart_button")


def test_unknown_brain_is_422(client, imported):
    response = client.post("/predict", json={"persona_id": imported[0], "brain": "oracle"})
    assert response.status_code == 422
    [error] = response.json()["detail"]  # a field error like any other, naming the field and the names allowed
    assert error["loc"][-1] == "brain" and "unknown brain 'oracle'; available: embedded, llm" in error["msg"]


def test_api_key(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, api_key="s3cret"))
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/personas").status_code == 401
        assert client.get("/personas", headers={"X-API-Key": "wrong"}).status_code == 401
        assert client.get("/personas", headers={"X-API-Key": "s3cret"}).status_code == 200
        assert client.get("/personas", headers={"Authorization": "Bearer s3cret"}).status_code == 200


def test_openapi_has_examples(client):
    spec = client.get("/openapi.json").json()
    assert "/predict" in spec["paths"] and "/personas/{persona_id}/memories" in spec["paths"]
    assert "examples" in json.dumps(spec["components"]["schemas"]["PredictRequest"])
