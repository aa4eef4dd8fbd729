"""POST /simulations runs twins on a live site in the background (202 + id); GET shows status, traces
and funnel; bad requests are refused before any browser starts."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from agent.allowed_hosts import LOOPBACK
from service.api.app import create_app
from service.demo_shop import create_shop_app
from service.settings import Settings
from tests.support.live_server import serve
from tests.support.service_process import free_port

OPERA_USER = "7f0c8207-6a6f-49cd-9d7e-17987cfafcb9"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("api")


@pytest.fixture(scope="module")
def client(data_dir, opera_dir):
    """One app and store for the module: starting the service and importing personas is the slow part."""
    import csv

    csv.field_size_limit(10**9)
    app = create_app(Settings(data_dir=data_dir, api_key="sim-key", allowed_hosts=LOOPBACK))
    with TestClient(app, headers={"X-API-Key": "sim-key"}) as test_client:
        with open(opera_dir / "users_sample.csv", newline="") as handle:
            for row in csv.DictReader(handle):
                assert test_client.post("/personas", json=row).status_code == 201
        yield test_client


@pytest.mark.integration
def test_start_poll_and_read_a_simulation(client, data_dir):
    with serve(create_shop_app()) as shop:
        started = client.post(
            "/simulations", json={"url": shop + "/", "personas": [OPERA_USER], "max_steps": 3, "seed": 0}
        )
        assert started.status_code == 202, started.text
        job_id = started.json()["id"]
        assert client.get("/healthz").status_code == 200  # the API answers while the browser works
        deadline = time.monotonic() + 120
        while (body := client.get(f"/simulations/{job_id}").json())["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, body
            time.sleep(0.5)
    assert body["status"] == "done", body["error"]
    trace = body["traces"][0]
    assert trace["persona_id"] == OPERA_USER and 1 <= len(trace["steps"]) <= 3
    assert trace["steps"][0]["url"] == shop + "/" and trace["steps"][0]["rationale"]
    assert body["funnel"]["twins"] == 1 and next(r["stage"] for r in body["funnel"]["reached"]) == "search"
    assert (data_dir / "simulations" / job_id / "report.html").exists()
    assert "out_dir" not in body and str(data_dir) not in client.get(f"/simulations/{job_id}").text  # no server paths
    listed = client.get("/simulations").json()
    assert (job_id, "done") in [(j["id"], j["status"]) for j in listed]


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"url": "ftp://example.com/", "personas": [OPERA_USER]}, "only http:// and https://"),
        ({"url": "javascript:alert(1)", "personas": [OPERA_USER]}, "only http:// and https://"),
        ({"url": "http://127.0.0.1:9/", "personas": []}, "name personas"),
        ({"url": "http://127.0.0.1:9/", "personas": [OPERA_USER], "max_steps": 0}, "greater than or equal to 1"),
        ({"url": "http://127.0.0.1:9/", "personas": [OPERA_USER], "max_steps": 101}, "less than or equal to 100"),
        ({"url": "http://127.0.0.1:9/", "personas": [OPERA_USER], "brain": "psychic"}, "unknown brain 'psychic'"),
        ({"url": f"http://127.0.0.1:{free_port()}/", "personas": [OPERA_USER]}, "connection refused"),
        (
            {"url": "http://127.0.0.1:9/", "personas": [OPERA_USER], "checkout_details": {"email": "me"}},
            "must be an email address",
        ),
        (
            {"url": "http://127.0.0.1:9/", "personas": [OPERA_USER], "checkout_details": {"card_number": "4242"}},
            "card_number",
        ),
    ],
)
def test_bad_requests_are_refused_before_any_work(client, body, fragment):
    before = len(client.get("/simulations").json())
    response = client.post("/simulations", json=body)
    assert response.status_code == 422 and fragment in response.text
    assert len(client.get("/simulations").json()) == before


def test_an_unknown_persona_is_not_found_before_any_work(client):
    before = len(client.get("/simulations").json())
    response = client.post("/simulations", json={"url": "http://127.0.0.1:9/", "personas": ["nobody-here"]})
    assert response.status_code == 404 and "unknown persona(s): nobody-here" in response.json()["detail"]
    assert len(client.get("/simulations").json()) == before


def test_unknown_simulation_and_missing_key(client):
    assert client.get("/simulations/nope").status_code == 404
    assert client.get("/simulations", headers={"X-API-Key": "wrong"}).status_code == 401
