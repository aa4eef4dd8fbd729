"""Fuzzing from the OpenAPI schema (schemathesis): whatever a client sends to any documented operation, the API
answers with a status the schema declares for it, in the declared shape, and never a 5xx. Then explicit cases:
a lone UTF-16 surrogate in every string field and 10^20 in every integer of every operation, one at a time.
Bounded (a few examples per operation, derandomised) so it runs in CI in a few minutes on a real app, store and
embedder."""

from __future__ import annotations

import csv
import json
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.api.app import create_app
from service.settings import Settings
from tests.support.openapi_requests import base_requests, with_extremes

DATA_DIR = Path(tempfile.mkdtemp(prefix="twinsim-fuzz-"))
app = create_app(Settings(data_dir=DATA_DIR, max_page_bytes=50_000))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)  # the schema needs no store
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
LONE_SURROGATE = "\ud800"
HUGE = 10**20
PERSONA = {}


@pytest.fixture(scope="module", autouse=True)
def running_app(opera_dir):
    """Run the lifespan once (real store, embedder, brains) and store one real persona to aim at."""
    try:
        with TestClient(app) as client:
            csv.field_size_limit(10**9)
            with open(opera_dir / "users_sample.csv", newline="") as users:
                row = next(csv.DictReader(users))
            created = client.post("/personas", json=row)
            assert created.status_code == 201
            PERSONA["id"] = created.json()["id"]
            yield client
    finally:
        shutil.rmtree(DATA_DIR, ignore_errors=True)


@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_within_its_schema(case):
    case.call_and_validate(checks=CHECKS)


def _url(path: str, path_parameters: dict, query: dict) -> str:
    """Strings as UTF-8 (a lone surrogate as the bytes a careless client sends: %ED%A0%80), numbers as written."""

    def encoded(value) -> str:
        return quote(str(value).encode("utf-8", "surrogatepass"), safe="")

    for name, value in path_parameters.items():
        path = path.replace("{" + name + "}", encoded(value))
    if query:
        path += "?" + "&".join(f"{quote(k)}={encoded(v)}" for k, v in query.items())
    return path


def extreme_requests():
    document = app.openapi()
    for request in base_requests(document, {"persona_id": "PERSONA"}):
        yield from with_extremes(request, LONE_SURROGATE, HUGE)


CASES = list(extreme_requests())


@pytest.mark.parametrize("request_", CASES, ids=[f"{r.method} {r.path} {r.changed}" for r in CASES])
def test_extreme_values_in_every_field_are_refused_within_the_schema(running_app, request_):
    parameters = {k: PERSONA["id"] if v == "PERSONA" else v for k, v in request_.path_parameters.items()}
    url = _url(request_.path, parameters, request_.query)
    body = None if request_.body is None else json.dumps(request_.body)  # ASCII JSON: the surrogate as \ud800
    response = running_app.request(
        request_.method, url, content=body, headers={"content-type": "application/json"} if body is not None else {}
    )
    assert response.status_code < 500, f"{request_.changed}: {response.status_code} {response.text[:300]}"
    operation = schema[request_.path][request_.method]
    assert str(response.status_code) in operation.definition.raw["responses"], (
        f"{request_.changed}: status {response.status_code} is not in the schema: {response.text[:300]}"
    )
    operation.validate_response(response)
