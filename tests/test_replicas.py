"""Stateless API replicas: two real API processes share one real `chroma run` server, so a persona
imported through one replica is read, recalled and predicted through the other (as behind a load balancer)."""

from __future__ import annotations

import csv

import httpx
import pytest

from tests.support.chroma_server import ChromaServer
from tests.support.service_process import ServiceProcess

pytestmark = pytest.mark.integration


def test_a_persona_imported_through_one_replica_is_served_by_the_other(tmp_path, opera_dir):
    csv.field_size_limit(10**9)
    with open(opera_dir / "users_sample.csv", newline="") as users:
        row = next(csv.DictReader(users))
    pid = row["user_id"]
    with ChromaServer(tmp_path / "chroma-server") as chroma:
        # Each replica gets its own empty data dir: nothing may be shared through the local disk.
        with (
            ServiceProcess({"TWINSIM_CHROMA_URL": chroma.url, "TWINSIM_DATA_DIR": str(tmp_path / "a")}) as a,
            ServiceProcess({"TWINSIM_CHROMA_URL": chroma.url, "TWINSIM_DATA_DIR": str(tmp_path / "b")}) as b,
        ):
            assert httpx.get(f"{b.url}/personas/{pid}", timeout=30).status_code == 404
            created = httpx.post(f"{a.url}/personas", json=row, timeout=120)
            assert created.status_code == 201, created.text

            assert (
                httpx.get(f"{b.url}/personas/{pid}", timeout=30).json()
                == httpx.get(f"{a.url}/personas/{pid}", timeout=30).json()
            )
            assert (
                httpx.get(f"{b.url}/healthz", timeout=30).json()["store"] == "chroma server"
            )  # the kind of store; its address stays private
            listed = httpx.get(f"{b.url}/personas/{pid}/memories", params={"k": 200}, timeout=30).json()
            assert len(listed) == created.json()["memories"]

            added = httpx.post(
                f"{b.url}/personas/{pid}/memories", json={"text": "I returned a loud blender last month."}, timeout=30
            )
            assert added.status_code == 201
            recalled = httpx.get(
                f"{a.url}/personas/{pid}/memories", params={"q": "noisy kitchen appliance", "k": 3}, timeout=30
            ).json()
            assert recalled[0]["text"] == "I returned a loud blender last month."

            prediction = httpx.post(
                f"{b.url}/predict",
                json={
                    "persona_id": pid,
                    "history": [{"action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"}}],
                },
                timeout=60,
            )
            assert prediction.status_code == 200, prediction.text
            body = prediction.json()
            assert body["brain"] == "embedded" and body["memories"]
            assert all(m["persona_id"] == pid for m in body["memories"])

            assert httpx.delete(f"{b.url}/personas/{pid}", timeout=30).status_code == 204
            assert httpx.get(f"{a.url}/personas/{pid}", timeout=30).status_code == 404
        assert not (tmp_path / "a" / "chroma").exists() and not (tmp_path / "b" / "chroma").exists()
