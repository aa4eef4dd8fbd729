"""A task given to a twin: through POST /predict and `twinsim predict`, refused when it is empty or oversized, and
steering the embedded brain's element and text (its behaviour model still chooses what kind of action)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agent.actions import ClickAction
from agent.behaviour.element_choice import DEFAULT_WEIGHTS, build_intent, choose_element
from agent.behaviour.page_index import page_index
from agent.brains.embedded import EmbeddedBrain
from agent.history import Step
from agent.page.parse import parse_page
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.sample_pages import sample_page
from agent.tasks import Task
from agent.twin_context import TwinContext
from service.api.app import create_app
from service.cli.main import app as cli
from service.settings import Settings

RESULTS_URL = "https://www.amazon.com/s?k=usb+c+cable"
SAMSUNG = "search_results.samsung_original_25w_usb_c_to_usb_c_cable_3_3ft_white"


@pytest.fixture(scope="module")
def results_page():
    return parse_page(sample_page("search_results.html"), url=RESULTS_URL)


@pytest.fixture(scope="module")
def client(tmp_path_factory, opera_dir):
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("tasks")))
    with TestClient(app) as test_client:
        first = (opera_dir / "personas.jsonl").read_text().splitlines()[0]
        assert test_client.post("/personas", json=json.loads(first)).status_code == 201
        yield test_client


def persona_id(client) -> str:
    return client.get("/personas").json()[0]["id"]


def test_predict_takes_a_task_and_the_embedded_brain_pursues_it(client, results_page):
    body = {
        "persona_id": persona_id(client),
        "page": {"simplified_html": sample_page("search_results.html"), "url": RESULTS_URL},
        "history": [{"action": {"type": "click", "name": "nav_bar.search_input"}, "click_type": "search"}],
    }
    plain = client.post("/predict", json=body)
    tasked = client.post("/predict", json={**body, "task": "buy the Samsung 25W USB-C cable in white"})
    assert plain.status_code == tasked.status_code == 200, tasked.text
    assert tasked.json()["details"]["task"] == "buy the Samsung 25W USB-C cable in white"
    assert plain.json()["details"]["task"] is None
    # Clicking into the search box, the person types next either way; with the task, they type what it names.
    assert plain.json()["action"]["type"] == tasked.json()["action"]["type"] == "input"
    assert tasked.json()["action"]["text"] == "Samsung 25W USB-C cable in white"
    assert plain.json()["action"]["text"] != tasked.json()["action"]["text"]
    with_criteria = client.post(
        "/predict", json={**body, "task": {"goal": "find the return policy", "success": {"text": "return policy"}}}
    )
    assert with_criteria.status_code == 200, with_criteria.text


@pytest.mark.parametrize(
    "task, reason",
    [
        ("x" * 100_000, "at most 2000 characters"),
        ("", "the task is empty"),
        ("   ", "the task is empty"),
        ({"goal": "find it", "success": {}}, "at least one of url, element or text"),
    ],
)
def test_a_bad_task_is_a_422_that_says_why(client, task, reason):
    response = client.post("/predict", json={"persona_id": persona_id(client), "task": task})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert any(entry["loc"][:2] == ["body", "task"] and reason in entry["msg"] for entry in detail), detail


def test_the_cli_refuses_a_bad_task_before_loading_anything(tmp_path):
    runner = CliRunner()
    env = {"TWINSIM_DATA_DIR": str(tmp_path)}
    huge = runner.invoke(cli, ["predict", "--persona", "p", "--task", "x" * 100_000], env=env)
    assert huge.exit_code == 2 and "--task" in huge.output and "at most 2000 characters" in huge.output
    assert "Traceback" not in huge.output
    empty = runner.invoke(cli, ["predict", "--persona", "p", "--task", " "], env=env)
    assert empty.exit_code == 2 and "the task is empty" in empty.output


def test_the_task_steers_which_element(results_page):
    """Most likely product link on the results page: the first product without a task, the one the task names with
    it (ninth on the page, so prominence alone never picks it)."""
    index = page_index(results_page)
    plain = choose_element(
        index, "product_link", build_intent("usb c cable", results_page.title, []), [], DEFAULT_WEIGHTS
    )
    tasked = choose_element(
        index,
        "product_link",
        build_intent("usb c cable", results_page.title, [], "buy the Samsung 25W USB-C cable in white"),
        [],
        DEFAULT_WEIGHTS,
    )
    assert not plain.candidate.name.startswith(SAMSUNG)
    assert tasked.candidate.name.startswith(SAMSUNG)


def test_the_persona_still_chooses_the_kind_of_action(results_page, opera_dir):
    """Over seeded draws, a task changes which element and what text, not the mix of action kinds."""
    from personas.sources import load_personas

    brain = EmbeddedBrain()
    personas = load_personas(opera_dir / "personas.jsonl")[:10]
    task = Task(goal="buy the Samsung 25W USB-C cable in white")
    kinds = {None: [], "task": []}
    for seed in range(40):
        for key, given in ((None, None), ("task", task)):
            decision = brain.decide_sync(
                TwinContext.on_page(
                    personas[seed % 10],
                    results_page,
                    PredictionInput(
                        history=[Step(action=ClickAction(name="nav_bar.homepage"))],
                        task=given,
                        options=PredictOptions(mode="sample", seed=seed),
                    ),
                )
            )
            kinds[key].append(decision.details["label"])
    assert kinds[None] == kinds["task"]


def test_simulate_refuses_a_bad_task_before_any_browser(tmp_path):
    runner = CliRunner()
    env = {"TWINSIM_DATA_DIR": str(tmp_path)}
    base = ["simulate", "--url", "http://127.0.0.1:9/", "--personas", "p", "--out", str(tmp_path / "run")]
    huge = runner.invoke(cli, [*base, "--task", "y" * 100_000], env=env)
    assert huge.exit_code == 2 and "at most 2000 characters" in huge.output and "Traceback" not in huge.output
    orphan = runner.invoke(cli, [*base, "--task-url", "/dp/"], env=env)
    assert orphan.exit_code == 2 and "need --task" in orphan.output
    blank = runner.invoke(cli, [*base, "--task", "buy it", "--task-text", " "], env=env)
    assert blank.exit_code == 2 and "'text' is empty" in blank.output
    assert not (tmp_path / "run").exists()
