"""The published OpenAPI schema and the service agree on what they refuse: five requests the schema once called
valid were refused by the service (a persona record without an id, an empty screenshot, an interview naming both a
sample and a decision, a simulation of nobody, an experiment page with no named element); now the schema says
so, and what it calls valid the service takes. OPTIONS and 405s name every method of a path; an experiment's
page.url may be written HTTP:// as /simulations' url may."""

from __future__ import annotations

import tempfile

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from agent.experiments.spec import PageSpec
from service.api.app import create_app
from service.settings import Settings
from tests.conftest import page

APP = create_app(Settings(data_dir=tempfile.mkdtemp(prefix="twinsim-schema-")))
OPENAPI = APP.openapi()


def request_schema(path: str) -> Draft202012Validator:
    body = OPENAPI["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return Draft202012Validator({**body, "components": OPENAPI["components"]})


@pytest.fixture(scope="module")
def client():
    with TestClient(APP) as test_client:
        assert test_client.post("/personas", json={"id": "ann", "self_description": "I buy books."}).status_code == 201
        yield test_client


# (operation path, the request URL, a body the service refuses, a like body it takes or refuses for another reason)
CASES = [
    ("/personas", "/personas", {}, {"id": "bob"}),
    ("/predict", "/predict", {"persona_id": "ann", "screenshot": {"base64": ""}}, {"persona_id": "ann"}),
    (
        "/personas/{persona_id}/interview",
        "/personas/ann/interview",
        {"question": "why?", "run": "r1", "sample": {"variant": "A"}, "decision": "A/ann/0/1"},
        {"question": "why?"},
    ),
    ("/personas/{persona_id}/interview", "/personas/ann/interview", {"question": "   "}, {"question": "why?"}),
    ("/simulations", "/simulations", {"url": "http://127.0.0.1:9/", "personas": [], "all": False}, None),
    (
        "/experiments",
        "/experiments",
        {
            "name": "x",
            "variants": [
                {"name": "A", "page": {"simplified_html": "<p>nothing to click</p>"}},
                {"name": "B", "page": {"simplified_html": "<p>nothing to click</p>"}},
            ],
        },
        {
            "name": "x",
            "variants": [
                {"name": "A", "page": {"simplified_html": page("product_page.html")}},
                {"name": "B", "page": {"simplified_html": page("product_page.html")}},
            ],
            "population": {"ids": ["ann"]},
            "samples_per_persona": 1,
        },
    ),
]


# What a later pass of schemathesis found: checks the schema did not state (now it does)
TWO_PAGES = [{"name": "B", "page": {"simplified_html": '<button name="buy">Buy</button>'}}]
CASES += [
    ("/predict", "/predict", {"persona_id": "ann", "options": {"ablate_memory": "yes"}}, None),  # a strict boolean
    ("/predict", "/predict", {"persona_id": "ann", "options": {"ablate_persona": 1}}, None),
    ("/simulations", "/simulations", {"url": "ftp://127.0.0.1:9/", "personas": ["ann"]}, None),
    (
        "/experiments",
        "/experiments",
        {"name": "x", "variants": [{"name": "A/1", "live_url": "http://a/"}, *TWO_PAGES]},
        None,
    ),
    (
        "/experiments",
        "/experiments",
        {"name": "x", "variants": [{"name": "A", "live_url": "ftp://a/"}, *TWO_PAGES]},
        None,
    ),
    (
        "/experiments",
        "/experiments",
        {"name": "x", "variants": [{"name": "A", "page": {"url": "file:///etc"}}, *TWO_PAGES]},
        None,
    ),
]

# The fuzzing run after issue 26's litellm fix: a negative sampling seed was a 500 (numpy's generators take none) ...
SAMPLE = {"persona_id": "ann", "brain": "embedded", "options": {"mode": "sample"}}
CASES += [
    (
        "/predict",
        "/predict",
        {**SAMPLE, "options": {"mode": "sample", "seed": -1433}},
        {**SAMPLE, "options": {"mode": "sample", "seed": 1433}},
    ),
    # ... and an OPeRA record whose user_id was a JSON false was stored as the persona "False"
    ("/personas", "/personas", {"user_id": False, "survey": None}, {"user_id": "u1", "survey": None}),
]


@pytest.mark.parametrize("operation, url, refused, taken", CASES)
def test_what_the_service_refuses_the_schema_calls_invalid(client, operation, url, refused, taken):
    validator = request_schema(operation)
    response = client.post(url, json=refused)
    assert response.status_code == 422, response.text
    assert not validator.is_valid(refused), f"the schema calls {refused} valid; the service says {response.text}"
    if taken is not None:
        assert validator.is_valid(taken)
        assert client.post(url, json=taken).status_code < 300


def test_options_and_405_name_every_method_of_a_path(client):
    options = client.options("/personas/ann")
    assert options.status_code == 204 and set(options.headers["allow"].split(", ")) == {"GET", "DELETE", "OPTIONS"}
    put = client.put("/personas/ann", json={})
    assert put.status_code == 405 and {"GET", "DELETE"} <= set(put.headers["allow"].split(", "))
    assert client.options("/no/such/path").status_code == 404


def test_an_experiment_page_url_may_be_written_in_capitals():
    assert PageSpec(url="HTTP://shop.example.com/p/1").url == "HTTP://shop.example.com/p/1"
    with pytest.raises(ValueError, match="only http:// and https://"):
        PageSpec(url="ftp://shop.example.com/p/1")


def test_a_field_refused_inside_a_route_is_located_in_the_body_like_every_other(client):
    """POST /personas checks its record itself; its refusal names the field under "body" as FastAPI's own do."""
    own = client.post("/personas", json={"id": "carl", "junk": 1})
    framework = client.post("/predict", json={"persona_id": "ann", "junk": 1})
    assert own.status_code == framework.status_code == 422
    assert ["body", "junk"] in [error["loc"] for error in own.json()["detail"]]
    assert ["body", "junk"] in [error["loc"] for error in framework.json()["detail"]]
