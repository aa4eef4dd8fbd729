"""Experiments through the real app: a product page with reviews vs the same page with a deal banner instead,
run on real OPeRA personas in a real Chroma store; the report opened in headless Chromium; bad specs refused
with a reason; results surviving a restart; an interrupted run resumed without redoing finished samples."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.jobs.experiment_store import ExperimentStore
from service.settings import Settings
from tests.conftest import REPO, page

pytestmark = pytest.mark.integration

BANNER_PAGE = (REPO / "examples" / "experiments" / "pages" / "product_deal_banner.html").read_text()
PRODUCT_URL = "https://www.amazon.com/dp/B0TWINSIM1"
N_PERSONAS = 3


def spec(persona_ids: list[str], **overrides) -> dict:
    body = {
        "name": "Deal banner instead of reviews",
        "variants": [
            {"name": "A", "page": {"simplified_html": page("product_page.html"), "page_url": PRODUCT_URL}},
            {"name": "B", "page": {"simplified_html": BANNER_PAGE, "page_url": PRODUCT_URL}},
        ],
        "history": [
            {
                "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
                "rationale": "My old charging cable frayed.",
            },
            {
                "action": {
                    "type": "click",
                    "name": "search_results.anker_usb_c_cable_6ft_nylon_braided_usb_a_"
                    "to_type_c_charger_cord.product_name",
                }
            },
        ],
        "population": {"ids": persona_ids},
        "samples_per_persona": 30,
        "targets": ["deal_banner"],
        "segments": ["prime"],
        "seed": 5,
    }
    body.update(overrides)
    return body


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("experiments-data")


@pytest.fixture(scope="module")
def persona_ids(data_dir, opera_dir) -> list[str]:
    records = [json.loads(line) for line in (opera_dir / "personas.jsonl").read_text().splitlines()[:N_PERSONAS]]
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        for record in records:
            assert client.post("/personas", json=record).status_code == 201
    return sorted(r["user_id"] if "user_id" in r else r["id"] for r in records)


def wait_until_finished(client: TestClient, experiment_id: str, limit_s: float = 300) -> dict:
    deadline = time.monotonic() + limit_s  # a guard against hanging, not a speed assertion
    while time.monotonic() < deadline:
        body = client.get(f"/experiments/{experiment_id}").json()
        if body["status"] not in ("queued", "running"):
            return body
        time.sleep(0.2)
    pytest.fail(f"experiment {experiment_id} did not finish within {limit_s} s")


@pytest.fixture(scope="module")
def finished(data_dir, persona_ids) -> dict:
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        response = client.post("/experiments", json=spec(persona_ids))
        assert response.status_code == 202, response.text
        accepted = response.json()
        body = wait_until_finished(client, accepted["id"])
        report = client.get(f"/experiments/{accepted['id']}/report")
        listing = client.get("/experiments").json()
    return {"accepted": accepted, "body": body, "report": report, "listing": listing}


def test_an_experiment_runs_in_the_background_and_finishes_with_statistics(finished, persona_ids):
    accepted, body = finished["accepted"], finished["body"]
    assert accepted["status"] == "queued" and accepted["total"] == N_PERSONAS * 30 * 2
    assert body["status"] == "done", body["error"]
    assert body["progress"]["done"] == body["progress"]["total"] == N_PERSONAS * 30 * 2
    analysis = body["results"]["analysis"]
    assert set(analysis["variants"]) == {"A", "B"}
    comparison = analysis["comparisons"][0]
    assert comparison["paired"] is True  # every twin instance saw both variants
    for outcome in ("purchase", "leave", "target:deal_banner"):
        result = comparison["outcomes"][outcome]
        assert result["test"].lower().startswith("mcnemar") and 0 <= result["p_value"] <= 1
        assert result["p_adjusted"] >= result["p_value"]
    # the banner exists only on B: no twin can click it on A; B shows no reviews, so fewer twins buy there
    # (the page terms: nothing vouches for the cable) and more leave
    rates_a, rates_b = analysis["variants"]["A"]["rates"], analysis["variants"]["B"]["rates"]
    assert rates_a["target:deal_banner"]["rate"] == 0
    assert rates_b["purchase"]["rate"] < rates_a["purchase"]["rate"]
    assert rates_b["leave"]["rate"] > rates_a["leave"]["rate"]
    # B has no reviews: the share of review clicks on A goes elsewhere on B
    assert "review" in analysis["variants"]["A"]["click_type"]["counts"]
    assert "review" not in analysis["variants"]["B"]["click_type"]["counts"]
    assert body["results"]["themes"]["variants"]  # rationales grouped into themes
    assert body["results"]["cost"]["samples"] == N_PERSONAS * 30 * 2
    assert body["results"]["spec"]["population_size"] == N_PERSONAS
    assert any(item["id"] == accepted["id"] and item["status"] == "done" for item in finished["listing"])


def test_the_report_shows_its_plots_in_headless_chromium(finished, tmp_path):
    from playwright.sync_api import sync_playwright

    report = finished["report"]
    assert report.status_code == 200 and report.headers["content-type"].startswith("text/html")
    html_path = tmp_path / "report.html"
    html_path.write_text(report.text)
    shot = tmp_path / "report.png"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            view = browser.new_page(viewport={"width": 1280, "height": 900})
            view.goto(html_path.as_uri())
            figures = view.locator("figure[data-chart]")
            assert figures.count() >= 2
            for i in range(figures.count()):
                figure = figures.nth(i)
                assert figure.is_visible()
                box = figure.bounding_box()
                assert box and box["width"] > 50 and box["height"] > 50
                assert figure.locator("svg.main-svg").count() >= 1  # plotly: the plot, and its hover layer
            view.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert shot.stat().st_size > 20_000  # a real rendering, not a blank page


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"population": {"ids": ["no-such-person"]}}, "unknown persona id(s): no-such-person"),
        ({"population": {"filters": {"gender": "robot"}}}, "population is empty"),
        ({"variants": [{"name": "A", "page": {"simplified_html": "<a name='x'>x</a>"}}, {"name": "B"}]}, "has no page"),
        ({"samples_per_persona": 101}, "less than or equal to 100"),
        ({"budget_usd": 20_000}, "less than or equal to 10000"),
        ({"brain": "psychic"}, "unknown brain 'psychic'"),
        ({"brain": "llm", "model": "gpt-4.1-mini", "budget_usd": 0.001}, "over the budget"),
        (
            {
                "variants": [
                    {"name": "A", "page": {"path": "/etc/passwd"}},
                    {"name": "B", "page": {"path": "/etc/hosts"}},
                ]
            },
            "file paths are read only by the CLI",
        ),
        ({"targets": ["add_to_crat"]}, "target 'add_to_crat' names no element on the pages of variants A, B"),
        ({"targets": ["deal_baner"]}, "closest: deal_banner"),
    ],
)
def test_bad_specs_get_422_with_the_reason_before_any_work(data_dir, persona_ids, change, reason):
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        before = len(client.get("/experiments").json())
        response = client.post("/experiments", json=spec(persona_ids, **change))
        assert response.status_code == 422
        assert reason in json.dumps(response.json()["detail"])
        assert len(client.get("/experiments").json()) == before  # nothing was queued


def test_unknown_experiments_are_404(data_dir):
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        assert client.get("/experiments/nope").status_code == 404
        assert client.get("/experiments/nope/report").status_code == 404
        assert client.post("/experiments/nope/resume").status_code == 404


def test_a_finished_result_survives_a_new_app_on_the_same_data_dir(finished, data_dir):
    experiment_id = finished["accepted"]["id"]
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        body = client.get(f"/experiments/{experiment_id}").json()
        assert body["status"] == "done"
        assert body["results"] == finished["body"]["results"]
        assert client.get(f"/experiments/{experiment_id}/report").text == finished["report"].text
        assert client.post(f"/experiments/{experiment_id}/resume").status_code == 409  # done: nothing to resume


def test_a_running_experiment_becomes_interrupted_on_restart_and_resumes_keeping_its_samples(
    finished, data_dir, persona_ids
):
    """A crash mid-run leaves 'running' and some samples in the store; the next app marks it interrupted,
    and a resume runs only the missing samples (a marked stored sample comes back untouched)."""
    from agent.experiments.spec import ExperimentSpec

    store = ExperimentStore(data_dir / "experiments.sqlite")
    body = spec(persona_ids, samples_per_persona=4)
    experiment_id = store.create(
        ExperimentSpec.model_validate(body).model_dump(mode="json", exclude_none=True), total=N_PERSONAS * 4 * 2
    )
    store.set_status(experiment_id, "running")
    done_before = [s for s in _samples_of(finished, data_dir) if s.instance < 4][:5]
    marked = [s.model_copy(update={"rationale": f"kept from before the crash {i}"}) for i, s in enumerate(done_before)]
    store.add_samples(experiment_id, marked)

    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        interrupted = client.get(f"/experiments/{experiment_id}").json()
        assert interrupted["status"] == "interrupted" and "resume" in interrupted["error"]
        assert client.get(f"/experiments/{experiment_id}/report").status_code == 409
        response = client.post(f"/experiments/{experiment_id}/resume")
        assert response.status_code == 202, response.text
        final = wait_until_finished(client, experiment_id)
    assert final["status"] == "done", final["error"]
    assert final["results"]["cost"]["resumed_samples"] == 5
    assert final["results"]["cost"]["samples"] == N_PERSONAS * 4 * 2
    stored = {(s.variant, s.persona_id, s.instance): s for s in store.samples(experiment_id)}
    assert len(stored) == N_PERSONAS * 4 * 2
    for sample in marked:
        assert stored[(sample.variant, sample.persona_id, sample.instance)].rationale == sample.rationale


def _samples_of(finished: dict, data_dir: Path):
    return ExperimentStore(data_dir / "experiments.sqlite").samples(finished["accepted"]["id"])


def test_stopping_the_service_leaves_a_running_experiment_interrupted_and_resumable(finished, data_dir, persona_ids):
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        response = client.post("/experiments", json=spec(persona_ids, samples_per_persona=100, seed=9))
        assert response.status_code == 202, response.text
        experiment_id = response.json()["id"]
    # leaving the block shut the app down while the run was queued or under way
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        stopped = client.get(f"/experiments/{experiment_id}").json()
        assert stopped["status"] == "interrupted", stopped
        assert client.post(f"/experiments/{experiment_id}/resume").status_code == 202
        final = wait_until_finished(client, experiment_id)
    assert final["status"] == "done", final["error"]
    assert final["results"]["cost"]["samples"] == N_PERSONAS * 100 * 2
    assert final["results"]["cost"]["resumed_samples"] == stopped["progress"]["done"]


def test_an_llm_experiment_runs_through_the_api_with_its_estimate_and_the_response_cache(data_dir, persona_ids):
    from tests.support.openai_server import OpenAICompatibleServer

    with OpenAICompatibleServer() as server:  # answers every call with a terminate
        settings = Settings(data_dir=data_dir, llm_api_base=server.base_url, llm_retries=0)
        with TestClient(create_app(settings)) as client:
            body = spec(persona_ids, brain="llm", model="openai/twin-test", samples_per_persona=2, concurrency=2)
            response = client.post("/experiments", json=body)
            assert response.status_code == 202, response.text
            estimate = response.json()["estimate"]
            assert estimate["calls"] == N_PERSONAS * 2 * 2 and estimate["prompt_tokens"] > 0
            final = wait_until_finished(client, response.json()["id"])
            served = server.completions_served
            again = client.post("/experiments", json=body)
            wait_until_finished(client, again.json()["id"])
            assert server.completions_served == served + 1  # the second run's probe call; its twins came from the cache
    assert final["status"] == "done", final["error"]
    assert (
        final["results"]["cost"]["llm_calls"] == served - 1 == N_PERSONAS * 2 * 2
    )  # and one probe call before the run
    assert final["results"]["cost"]["fallbacks"] == 0 and "provider_check" not in final["results"]["cost"]
    assert final["results"]["analysis"]["variants"]["B"]["rates"]["leave"]["rate"] == 1.0
    assert (data_dir / "experiments" / "llm_cache.sqlite").exists()
