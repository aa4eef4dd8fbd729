"""Per-key rate limits: each API key has its own token bucket; an empty bucket is a 429 with Retry-After."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.api.rate_limit import TokenBucketLimiter
from service.settings import Settings


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_the_burst_then_refills_at_the_rate():
    clock = FakeClock()
    limiter = TokenBucketLimiter(rate=2.0, burst=3, clock=clock)
    assert [limiter.acquire("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.acquire("k") == pytest.approx(0.5)  # one token comes back every 0.5 s
    clock.now += 0.5
    assert limiter.acquire("k") == 0.0
    assert limiter.acquire("other") == 0.0  # buckets are per key
    clock.now += 60
    assert [limiter.acquire("k") for _ in range(4)][-1] > 0  # refill stops at the burst size


def test_bucket_count_is_bounded():
    limiter = TokenBucketLimiter(rate=1.0, burst=1, max_keys=100, clock=FakeClock())
    for i in range(1000):
        limiter.acquire(f"made-up-{i}")
    assert len(limiter._buckets) == 100


@pytest.fixture
def client(tmp_path):
    # A rate so slow that no token comes back during the test: the outcome does not depend on timing.
    settings = Settings(data_dir=tmp_path, api_key="team-a-key, team-b-key", rate_limit_per_s=0.001, rate_limit_burst=3)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_each_key_gets_its_own_bucket_and_429_says_when_to_retry(client):
    a, b = {"X-API-Key": "team-a-key"}, {"Authorization": "Bearer team-b-key"}
    assert [client.get("/personas", headers=a).status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/personas", headers=a)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert "rate limit" in refused.json()["detail"]
    assert client.get("/personas", headers=b).status_code == 200  # team B is not punished for team A
    assert (
        client.get("/healthz").status_code == 200 and client.get("/metrics").status_code == 200
    )  # probes are never limited
    assert "twinsim_rate_limited_requests_total 1.0" in client.get("/metrics").text


def test_a_wrong_key_is_401_before_any_bucket(client):
    for _ in range(5):
        assert client.get("/personas", headers={"X-API-Key": "team-c-key"}).status_code == 401
    assert (
        client.get("/personas", headers={"X-API-Key": "team-a-key,team-b-key"}).status_code == 401
    )  # the list is not a key


def test_no_limit_by_default(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path))) as client:
        assert all(client.get("/personas").status_code == 200 for _ in range(20))
