"""Tenants: with keys for acme and globex, neither can read, recall, write into or delete the other's personas,
nor see the other's experiments, reports or simulations; an admin key sees every tenant; a store written before
tenants belongs to the default tenant (a key without a tenant). Checked route by route on the real app and store."""

from __future__ import annotations

import time

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from agent.allowed_hosts import LOOPBACK
from personas.open_store import open_memory_store
from personas.sources import persona_from_record
from service.api.app import create_app
from service.api.security import require_api_key
from service.settings import Settings
from tests.conftest import page

ACME, GLOBEX, ADMIN, LEGACY = "acme-key-1", "globex-key-2", "admin-key-3", "legacy-key-4"
KEYS = f"{ACME}:acme, {GLOBEX}:globex, {ADMIN}:*, {LEGACY}"
PUBLIC = {"/healthz", "/livez", "/metrics", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"}


def persona(name: str, detail: str) -> dict:
    return {
        "id": "maria-lopez",
        "name": name,
        "demographics": {"gender": "Female", "age": "35-44 years old"},
        "self_description": f"I am {name}. {detail}",
    }


def experiment(persona_id: str = "maria-lopez") -> dict:
    return {
        "name": "tenants",
        "population": {"ids": [persona_id]},
        "samples_per_persona": 1,
        "variants": [
            {"name": "A", "page": {"simplified_html": page("product_page.html")}},
            {"name": "B", "page": {"simplified_html": page("search_results.html")}},
        ],
    }


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("tenants")
    legacy = persona_from_record(persona("Lena", "Written before tenants existed.") | {"id": "lena-old"})
    open_memory_store(path=data_dir / "chroma").put_persona(legacy)  # a store from before tenants
    with TestClient(create_app(Settings(data_dir=data_dir, api_key=KEYS, allowed_hosts=LOOPBACK))) as test_client:
        yield test_client


def as_(key: str) -> dict:
    return {"X-API-Key": key}


@pytest.fixture(scope="module")
def acme_data(client, shop_url):
    assert (
        client.post("/personas", json=persona("Maria", "I collect red teapots."), headers=as_(ACME)).status_code == 201
    )
    created = client.post("/experiments", json=experiment(), headers=as_(ACME))
    assert created.status_code == 202, created.text
    # A live start page (the demo shop): a dead one is refused up front, before any job exists.
    simulation = client.post(
        "/simulations", json={"url": shop_url, "personas": ["maria-lopez"], "max_steps": 1}, headers=as_(ACME)
    )
    assert simulation.status_code == 202, simulation.text
    return {"experiment": created.json()["id"], "simulation": simulation.json()["id"]}


def test_another_tenant_cannot_reach_acme_personas(client, acme_data):
    pid, b = "maria-lopez", as_(GLOBEX)
    assert client.get("/personas", headers=b).json() == []
    assert client.get(f"/personas/{pid}", headers=b).status_code == 404
    assert client.get(f"/personas/{pid}/memories", headers=b).status_code == 404
    assert client.get(f"/personas/{pid}/memories", params={"q": "teapots"}, headers=b).status_code == 404
    assert client.post(f"/personas/{pid}/memories", json={"text": "planted"}, headers=b).status_code == 404
    assert client.post("/predict", json={"persona_id": pid}, headers=b).status_code == 404
    assert client.delete(f"/personas/{pid}", headers=b).status_code == 404
    for forged in ("acme..maria-lopez", "acme..x"):  # the stored form of acme's ids cannot be named
        assert client.get(f"/personas/{forged}", headers=b).status_code == 404
        planted = client.post("/personas", json=persona("Eve", "Planted.") | {"id": forged}, headers=b)
        assert planted.status_code == 422 and "'..'" in planted.json()["detail"]
    assert client.get("/personas/maria-lopez", headers=as_(ACME)).json()["name"] == "Maria"
    mine = client.get(f"/personas/{pid}/memories", params={"q": "teapots", "k": 3}, headers=as_(ACME)).json()
    assert "teapots" in mine[0]["text"] and mine[0]["persona_id"] == pid


def test_the_same_id_in_two_tenants_is_two_people(client, acme_data):
    b = as_(GLOBEX)
    created = client.post("/personas", json=persona("Marta", "I never buy teapots."), headers=b)
    assert created.status_code == 201 and created.json()["replaced"] is False
    assert client.get("/personas/maria-lopez", headers=b).json()["name"] == "Marta"
    assert client.get("/personas/maria-lopez", headers=as_(ACME)).json()["name"] == "Maria"
    recalled = client.get("/personas/maria-lopez/memories", params={"q": "teapots", "k": 50}, headers=b).json()
    assert recalled and not any("red teapots" in m["text"] for m in recalled)
    predicted = client.post(
        "/predict",
        json={"persona_id": "maria-lopez", "page": {"simplified_html": page("product_page.html")}},
        headers=as_(ACME),
    ).json()
    assert predicted["memories"] and not any("never buy" in m["text"] for m in predicted["memories"])
    assert client.delete("/personas/maria-lopez", headers=b).status_code == 204
    assert client.get("/personas/maria-lopez", headers=as_(ACME)).status_code == 200


def test_another_tenant_cannot_see_acme_runs(client, acme_data):
    b, eid, sid = as_(GLOBEX), acme_data["experiment"], acme_data["simulation"]
    assert client.get("/experiments", headers=b).json() == []
    assert client.get(f"/experiments/{eid}", headers=b).status_code == 404
    assert client.get(f"/experiments/{eid}/report", headers=b).status_code == 404
    assert client.post(f"/experiments/{eid}/resume", headers=b).status_code == 404
    assert client.get("/simulations", headers=b).json() == []
    assert client.get(f"/simulations/{sid}", headers=b).status_code == 404
    assert [e["id"] for e in client.get("/experiments", headers=as_(ACME)).json()] == [eid]
    assert client.get(f"/simulations/{sid}", headers=as_(ACME)).status_code == 200
    assert (
        client.post("/experiments", json=experiment(), headers=b).status_code == 422
    )  # acme's persona is unknown here


def test_acme_experiment_runs_on_acme_personas(client, acme_data):
    deadline = time.monotonic() + 120  # a guard against hanging, not a speed assertion
    while (record := client.get(f"/experiments/{acme_data['experiment']}", headers=as_(ACME)).json())["status"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert record["status"] == "done", record["error"]
    assert client.get(f"/experiments/{acme_data['experiment']}/report", headers=as_(ACME)).status_code == 200


def test_admin_sees_every_tenant_and_legacy_data_belongs_to_the_default_tenant(client, acme_data):
    assert [p["id"] for p in client.get("/personas", headers=as_(LEGACY)).json()] == ["lena-old"]
    assert client.get("/personas/lena-old", headers=as_(ACME)).status_code == 404
    everyone = {p["id"] for p in client.get("/personas", headers=as_(ADMIN)).json()}
    assert {"lena-old", "acme..maria-lopez"} <= everyone
    assert client.get(f"/experiments/{acme_data['experiment']}", headers=as_(ADMIN)).status_code == 200
    assert client.get(f"/simulations/{acme_data['simulation']}", headers=as_(ADMIN)).status_code == 200
    assert client.get("/experiments", headers=as_(LEGACY)).json() == []


def test_every_route_but_the_probes_needs_a_key():
    """Routes added later included: a route outside the secured routers would have no tenant."""
    app = create_app(Settings(api_key=KEYS))
    for route in app.routes:
        if isinstance(route, APIRoute) and route.path not in PUBLIC:
            calls = [d.call for d in route.dependant.dependencies]
            assert require_api_key in calls, f"{route.path} is not behind the API key (and so not scoped by tenant)"


def test_bad_tenant_names_are_settings_errors(tmp_path):
    with pytest.raises(ValueError, match="tenant 'Acme Corp'"):
        Settings(data_dir=tmp_path, api_key="k1:Acme Corp")
