"""Fuzzing from the OpenAPI schema (schemathesis): whatever a client sends to any documented operation,
the API answers with a 2xx/4xx and never a 5xx. Bounded (a few examples per operation, derandomised) so it
runs in CI in a minute or two on a real app, store and embedder."""

from __future__ import annotations

import csv
import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from service.app import create_app
from service.settings import Settings

DATA_DIR = Path(tempfile.mkdtemp(prefix="twinsim-fuzz-"))
app = create_app(Settings(data_dir=DATA_DIR, max_page_bytes=50_000))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)  # the schema needs no store


@pytest.fixture(scope="module", autouse=True)
def running_app(opera_dir):
    """Run the lifespan once (real store, embedder, brains) and store one real persona to aim at."""
    try:
        with TestClient(app) as client:
            csv.field_size_limit(10**9)
            row = next(csv.DictReader(open(opera_dir / "users_sample.csv", newline="")))
            assert client.post("/personas", json=row).status_code == 201
            yield
    finally:
        shutil.rmtree(DATA_DIR, ignore_errors=True)


@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_operation_answers_5xx(case):
    response = case.call()
    assert response.status_code < 500, f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:500]}"
