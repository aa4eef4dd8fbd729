"""Structured JSON logs (one object per request), request ids, clean 500s, and Prometheus /metrics
fed from real predictions, including LLM tokens and fallbacks through a real HTTP LLM server."""

from __future__ import annotations

import csv
import json

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from service.api.app import create_app
from service.settings import Settings


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """Parsed /metrics: (sample name, sorted labels) -> value."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def access_lines(captured: str) -> list[dict]:
    lines = [json.loads(line) for line in captured.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("logger") == "twinsim.access"]


@pytest.fixture
def client(tmp_path, llm_server, opera_dir):
    settings = Settings(
        data_dir=tmp_path, llm_api_base=llm_server.base_url, llm_model="openai/twin-test", llm_retries=0
    )
    app = create_app(settings)

    @app.get("/boom", include_in_schema=False)
    async def boom():
        raise RuntimeError("secret internal detail")

    with TestClient(app, raise_server_exceptions=False) as test_client:
        csv.field_size_limit(10**9)
        with open(opera_dir / "users_sample.csv", newline="") as users:
            row = next(csv.DictReader(users))
        assert test_client.post("/personas", json=row).status_code == 201
        test_client.persona_id = row["user_id"]
        yield test_client


def test_one_json_log_line_per_request_with_its_request_id(client, capsys):
    capsys.readouterr()
    ok = client.get(f"/personas/{client.persona_id}", headers={"X-Request-ID": "trace-42"})
    missing = client.get("/personas/nobody")
    assert ok.headers["X-Request-ID"] == "trace-42"
    generated = missing.headers["X-Request-ID"]
    assert len(generated) == 32
    lines = access_lines(capsys.readouterr().out)
    assert len(lines) == 2
    first, second = lines
    assert first["request_id"] == "trace-42" and first["status"] == 200 and first["method"] == "GET"
    assert first["path"] == f"/personas/{client.persona_id}" and first["route"] == "/personas/{persona_id}"
    assert first["latency_ms"] > 0 and first["level"] == "INFO" and "time" in first
    assert second["request_id"] == generated and second["status"] == 404


def test_a_crash_is_a_json_500_naming_the_request_the_traceback_only_in_the_log(client, capsys):
    capsys.readouterr()
    response = client.get("/boom", headers={"X-Request-ID": "bad-day"})
    assert response.status_code == 500
    assert response.json() == {"detail": "internal error", "request_id": "bad-day"}
    (line,) = access_lines(capsys.readouterr().out)
    assert line["status"] == 500 and line["level"] == "ERROR" and "secret internal detail" in line["exc_info"]


def test_a_hostile_request_id_is_replaced(client):
    response = client.get("/healthz", headers={"X-Request-ID": "x" * 500})
    assert len(response.headers["X-Request-ID"]) == 32


def test_metrics_count_predictions_fallbacks_tokens_and_latency_by_route(client, llm_server):
    pid = client.persona_id
    assert client.post("/predict", json={"persona_id": pid}).status_code == 200
    llm_server.enqueue('{"rationale": "Enough browsing for today.", "action": {"type": "terminate"}}')
    assert client.post("/predict", json={"persona_id": pid, "brain": "llm"}).json()["fallback_used"] is False
    invalid = '{"rationale": "The promo looks fun.", "action": {"type": "click", "name": "totally.made.up"}}'
    llm_server.enqueue(invalid, invalid)  # rejected twice by grounding: the embedded brain answers
    page = {"simplified_html": '<input name="nav_bar.search_input" type="text"><a name="nav_bar.cart_button">Cart</a>'}
    assert (
        client.post("/predict", json={"persona_id": pid, "brain": "llm", "page": page}).json()["fallback_used"] is True
    )
    client.get("/personas/nobody")

    got = samples(client.get("/metrics").text)
    assert got[("twinsim_predictions_total", (("brain", "embedded"), ("requested_brain", "embedded")))] == 1
    assert got[("twinsim_predictions_total", (("brain", "llm"), ("requested_brain", "llm")))] == 1
    assert got[("twinsim_predictions_total", (("brain", "embedded"), ("requested_brain", "llm")))] == 1
    assert got[("twinsim_fallbacks_total", (("requested_brain", "llm"),))] == 1
    assert got[("twinsim_llm_calls_total", ())] == len(llm_server.requests) == 3
    assert got[("twinsim_llm_tokens_total", (("kind", "prompt"),))] > 100  # the prompts carry a persona and a page
    assert got[("twinsim_llm_tokens_total", (("kind", "completion"),))] > 0
    assert ("twinsim_llm_cost_usd_total", ()) in got
    assert got[("twinsim_http_request_duration_seconds_count", (("method", "POST"), ("route", "/predict")))] == 3
    assert (
        got[
            ("twinsim_http_requests_total", (("method", "GET"), ("route", "/personas/{persona_id}"), ("status", "404")))
        ]
        == 1
    )


def test_liveness_does_not_touch_the_store(client):
    assert client.get("/livez").json() == {"status": "ok"}


def test_uvicorn_own_lines_are_json_too(capsys):
    import logging

    import uvicorn

    from service.api.request_log import uvicorn_log_config

    uvicorn.Config("service.api.main:app", log_config=uvicorn_log_config("info")).configure_logging()
    capsys.readouterr()
    logging.getLogger("uvicorn.error").info("Started server process [%d]", 42)
    logging.getLogger("uvicorn.access").info("GET / 200")  # off: the app logs requests itself
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        {"time": lines[0]["time"], "level": "INFO", "logger": "uvicorn.error", "message": "Started server process [42]"}
    ]
