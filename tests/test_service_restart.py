"""Personas survive a restart of the real service process (embedded Chroma on disk)."""

from __future__ import annotations

import csv

import httpx
import pytest

from tests.support.service_process import ServiceProcess

pytestmark = pytest.mark.integration


def test_personas_survive_restart(tmp_path, opera_dir):
    csv.field_size_limit(10**9)
    with open(opera_dir / "users_sample.csv", newline="") as users:
        rows = list(csv.DictReader(users))
    env = {"TWINSIM_DATA_DIR": str(tmp_path)}
    with ServiceProcess(env) as service:
        for row in rows:
            assert httpx.post(f"{service.url}/personas", json=row, timeout=60).status_code == 201
        before = httpx.get(f"{service.url}/personas/{rows[0]['user_id']}").json()
        memories_before = httpx.get(f"{service.url}/personas/{rows[0]['user_id']}/memories", params={"k": 200}).json()
    with ServiceProcess(env) as service:
        assert httpx.get(f"{service.url}/personas/{rows[0]['user_id']}").json() == before
        assert (
            httpx.get(f"{service.url}/personas/{rows[0]['user_id']}/memories", params={"k": 200}).json()
            == memories_before
        )
        assert httpx.get(f"{service.url}/healthz").json()["personas"] == 2
        response = httpx.post(f"{service.url}/predict", json={"persona_id": rows[1]["user_id"]}, timeout=30)
        assert response.status_code == 200 and response.json()["memories"]
