"""What the schema promises and probes see: error statuses documented, the persona-id pattern stated, 422s in the
declared shape whether their detail is a sentence or a field list, and /healthz answering HEAD without
revealing where the data lives."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from personas.persona import PERSONA_ID_PATTERN
from service.api.app import create_app
from service.api.schemas import ErrorBody
from service.settings import Settings


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with TestClient(create_app(Settings(data_dir=tmp_path_factory.mktemp("contract"), api_key="k"))) as test_client:
        yield test_client


def test_error_statuses_and_the_persona_id_pattern_are_in_the_schema(client):
    document = client.get("/openapi.json").json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if path not in ("/healthz", "/livez"):
                assert {"401", "413", "422", "429"} <= set(operation["responses"]), f"{method} {path}"
            if "{" in path:
                assert "404" in operation["responses"], f"{method} {path}"
    assert "409" in document["paths"]["/experiments/{experiment_id}/report"]["get"]["responses"]
    parameter = document["paths"]["/personas/{persona_id}"]["get"]["parameters"][0]
    assert parameter["schema"]["pattern"] == PERSONA_ID_PATTERN
    assert (
        document["components"]["schemas"]["PredictRequest"]["properties"]["persona_id"]["pattern"] == PERSONA_ID_PATTERN
    )


def test_422_bodies_match_the_declared_error_body(client):
    key = {"X-API-Key": "k"}
    page = {"simplified_html": '<html><body><button name="buy">Buy</button></body></html>'}
    sentence = client.post(
        "/experiments",
        headers=key,
        json={  # refused by a check, in one sentence
            "name": "x",
            "variants": [{"name": "A", "page": page}, {"name": "B", "page": page}],
            "population": {"ids": ["nobody"]},
        },
    )
    fields = client.post("/predict", json={"persona_id": "a b"}, headers=key)
    for response in (sentence, fields):
        assert response.status_code == 422
        ErrorBody.model_validate(response.json())
    assert isinstance(sentence.json()["detail"], str) and fields.json()["detail"][0]["loc"] == ["body", "persona_id"]


def test_healthz_answers_head_and_keeps_the_data_path_private(client, tmp_path_factory):
    assert client.head("/healthz").status_code == 200 and client.head("/livez").status_code == 200
    health = client.get("/healthz").json()
    assert health["store"] == "embedded chroma" and "contract" not in client.get("/healthz").text
