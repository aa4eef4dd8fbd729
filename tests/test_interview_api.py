"""Interviewing twins over HTTP about a finished experiment (the real app on a temp data dir, real OPeRA personas in
a real Chroma store, the embedded brain): the experiment's decision export is served; the offline answer is made
only of that decision's drivers and verbatim quotes of the memories it lists, and other questions bring other ones;
with an LLM (real HTTP through litellm to the loopback server) the prompt holds the decision's action, rationale,
page and the recalled memories, and a failing provider falls back to the offline answer and says so; bad input
gets a 4xx with the reason."""

from __future__ import annotations

import hashlib
import io
import json
import time

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from agent.exports.decision_table import COLUMN_NAMES
from service.api.app import create_app
from service.settings import Settings
from tests.conftest import REPO, page

pytestmark = pytest.mark.integration

BANNER_PAGE = (REPO / "examples" / "experiments" / "pages" / "product_deal_banner.html").read_text()
PRODUCT_URL = "https://www.amazon.com/dp/B0TWINSIM1"
LEAVE = "Why did you leave without buying?"
PRICE = "How much do you spend online, and what do you think of what things cost here?"


def app(data_dir, **settings) -> TestClient:
    return TestClient(create_app(Settings(data_dir=data_dir, **settings)))


@pytest.fixture(scope="module")
def finished(tmp_path_factory, opera_dir) -> dict:
    """Three OPeRA personas, and an experiment on them run to the end: its id and its decisions."""
    data_dir = tmp_path_factory.mktemp("interview-data")
    records = [json.loads(line) for line in (opera_dir / "personas.jsonl").read_text().splitlines()[:3]]
    spec = {
        "name": "Deal banner instead of reviews",
        "samples_per_persona": 10,
        "seed": 5,
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
    }
    with app(data_dir) as client:
        ids = []
        for record in records:
            response = client.post("/personas", json=record)
            assert response.status_code == 201, response.text
            ids.append(response.json()["id"])
        response = client.post("/experiments", json={**spec, "population": {"ids": ids}})
        assert response.status_code == 202, response.text
        experiment_id = response.json()["id"]
        deadline = time.monotonic() + 300  # a guard against hanging, not a speed assertion
        while client.get(f"/experiments/{experiment_id}").json()["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, "the experiment did not finish"
            time.sleep(0.2)
        body = client.get(f"/experiments/{experiment_id}").json()
        assert body["status"] == "done", body["error"]
        parquet = client.get(f"/experiments/{experiment_id}/decisions")
        jsonl = client.get(f"/experiments/{experiment_id}/decisions", params={"format": "jsonl"})
    assert parquet.status_code == jsonl.status_code == 200
    return {
        "data_dir": data_dir,
        "id": experiment_id,
        "results": body["results"],
        "table": pd.read_parquet(io.BytesIO(parquet.content)),
        "rows": [json.loads(line) for line in jsonl.text.splitlines()],
    }


def a_departure(finished) -> dict:
    """A twin run that ended in leaving, on variant B (the banner page has no reviews: most leave there)."""
    return next(r for r in finished["rows"] if r["variant"] == "B" and r["action_type"] == "terminate" and r["reasons"])


def ask(client, persona_id, question, **body):
    return client.post(f"/personas/{persona_id}/interview", json={"question": question, **body})


def assert_traceable(answer: dict, row: dict | None) -> None:
    """Every sentence is one of the decision's drivers in the words of its export row, or a verbatim quote of a
    memory the answer lists; the answer is those sentences and nothing else."""
    phrases = {r["driver"]: r["phrase"] for r in row["reasons"]} if row else {}
    memories = {m["id"]: m["text"] for m in answer["memories"]}
    assert answer["sentences"] and answer["answer"] == " ".join(s["text"] for s in answer["sentences"])
    for sentence in answer["sentences"]:
        if sentence["source"] == "driver":
            phrase = phrases[sentence["driver"]]
            assert sentence["text"] == phrase[0].upper() + phrase[1:] + ("" if phrase.endswith(".") else ".")
        else:
            assert sentence["source"] == "memory"
            quoted = sentence["text"].removeprefix("\u201c").removesuffix("\u201d").removesuffix("…")
            assert quoted and quoted in memories[sentence["memory_id"]]
    assert {d["driver"] for d in answer["drivers"]} == {s["driver"] for s in answer["sentences"] if s["driver"]}


def test_the_experiment_serves_its_decision_export(finished):
    table, results = finished["table"], finished["results"]
    assert tuple(table.columns) == COLUMN_NAMES
    assert len(table) == results["decisions"]["rows"] == results["cost"]["predictions"]
    assert set(table.run_id) == {finished["id"]} and sorted(table.decision_id) == sorted(
        r["decision_id"] for r in finished["rows"]
    )
    sha = table.page_sha256.iloc[0]
    with app(finished["data_dir"]) as client:
        stored = client.get(f"/experiments/{finished['id']}/pages/{sha}")
        assert stored.status_code == 200 and hashlib.sha256(stored.content).hexdigest() == sha
        assert stored.headers["content-disposition"].startswith("attachment")
        assert client.get(f"/experiments/{finished['id']}/pages/{'0' * 64}").status_code == 404
        assert client.get(f"/experiments/{finished['id']}/pages/not-a-hash").status_code == 422
        assert client.get("/experiments/nope/decisions").status_code == 404


def test_an_offline_answer_is_the_decisions_drivers_and_the_persons_own_words(finished):
    row = a_departure(finished)
    with app(finished["data_dir"]) as client:
        response = ask(
            client, row["persona_id"], LEAVE, run=finished["id"], sample={"variant": "B", "instance": row["instance"]}
        )
        recalled = client.get(f"/personas/{row['persona_id']}/memories", params={"q": LEAVE, "k": 5}).json()
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["brain"] == answer["requested_brain"] == "embedded" and not answer["fallback_used"]
    decision = answer["decision"]
    assert decision["decision_id"] == row["decision_id"] and decision["rationale"] == row["rationale"]
    assert decision["action"] == {"type": "terminate"} and decision["page_sha256"] == row["page_sha256"]
    assert_traceable(answer, row)
    assert {s["source"] for s in answer["sentences"]} == {"driver", "memory"}
    by_id = {m["id"]: m for m in recalled}  # the memories quoted are the person's, recalled by the question
    assert answer["memories"] and all(by_id[m["id"]]["text"] == m["text"] for m in answer["memories"])


def test_different_questions_bring_different_drivers_and_memories(finished):
    row = a_departure(finished)
    reference = {"run": finished["id"], "decision": row["decision_id"]}
    with app(finished["data_dir"]) as client:
        answers = [ask(client, row["persona_id"], question, **reference).json() for question in (LEAVE, PRICE)]
    for answer in answers:
        assert answer["decision"]["decision_id"] == row["decision_id"]
        assert_traceable(answer, row)
    drivers = [{d["driver"] for d in a["drivers"]} for a in answers]
    memories = [{m["id"] for m in a["memories"]} for a in answers]
    assert drivers[0] != drivers[1] or memories[0] != memories[1]
    assert memories[0] != memories[1]  # recalled by the question


def test_without_a_run_the_twin_answers_in_its_own_words(finished):
    persona_id = finished["rows"][0]["persona_id"]
    with app(finished["data_dir"]) as client:
        answer = ask(client, persona_id, PRICE).json()
    assert answer["decision"] is None and answer["drivers"] == []
    assert {s["source"] for s in answer["sentences"]} == {"memory"}
    assert_traceable(answer, None)


def test_an_llm_answers_from_the_decision_its_page_and_the_recalled_memories(finished, llm_server):
    row = a_departure(finished)
    said = "I left because nobody had reviewed that cable, and I don't buy blind."
    llm_server.enqueue(said)
    with app(finished["data_dir"], llm_api_base=llm_server.base_url, llm_model="openai/twin-test") as client:
        response = ask(client, row["persona_id"], LEAVE, run=finished["id"], decision=row["decision_id"], brain="llm")
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["answer"], answer["brain"], answer["model"]) == (said, "llm", "openai/twin-test")
    assert not answer["fallback_used"] and answer["usage"]["calls"] == 1
    prompt = "\n".join(m["content"] for m in llm_server.requests[-1]["messages"])
    assert "What I did: terminate" in prompt and row["rationale"] in prompt
    assert LEAVE in prompt and row["page_title"] in prompt and f"URL: {PRODUCT_URL}" in prompt  # the stored page
    assert answer["memories"] and all(m["text"][:200] in prompt for m in answer["memories"])
    assert all(r["phrase"] in prompt for r in row["reasons"])


def test_a_failing_llm_falls_back_to_the_offline_answer_and_says_so(finished, llm_server):
    row = a_departure(finished)
    llm_server.enqueue(("status", 500))
    with app(
        finished["data_dir"], llm_api_base=llm_server.base_url, llm_model="openai/twin-test", llm_retries=0
    ) as client:
        response = ask(client, row["persona_id"], LEAVE, run=finished["id"], decision=row["decision_id"], brain="llm")
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["fallback_used"] and answer["brain"] == "embedded" and answer["requested_brain"] == "llm"
    assert "HTTP 500" in answer["fallback_reason"]
    assert_traceable(answer, row)


@pytest.mark.parametrize(
    "persona, body, status, reason",
    [
        ("nobody-here", {"question": LEAVE}, 404, "persona 'nobody-here' not found"),
        ("{persona}", {"question": LEAVE, "run": "no-such-run"}, 404, "run 'no-such-run' not found"),
        (
            "{persona}",
            {"question": LEAVE, "run": "{run}", "sample": {"variant": "Z"}},
            404,
            "has no decision with variant='Z'",
        ),
        (
            "{persona}",
            {"question": LEAVE, "run": "{run}", "sample": {"variant": "B", "step": 7}},
            404,
            "took no step 7",
        ),
        ("{persona}", {"question": LEAVE, "run": "{run}", "decision": "B/x/0/1"}, 404, "no decision 'B/x/0/1'"),
        ("{persona}", {"question": "x" * 100_000}, 422, "at most 2000 characters"),
        ("{persona}", {"question": "   "}, 422, "question is blank"),
        ("{persona}", {"question": LEAVE, "sample": {"variant": "B"}}, 422, "name the run"),
        ("{persona}", {"question": LEAVE, "brain": "psychic"}, 422, "'embedded' or 'llm'"),
    ],
)
def test_bad_interviews_get_a_4xx_with_the_reason(finished, persona, body, status, reason):
    persona_id = finished["rows"][0]["persona_id"]
    body = json.loads(json.dumps(body).replace("{run}", finished["id"]))
    with app(finished["data_dir"]) as client:
        response = client.post(f"/personas/{persona.format(persona=persona_id)}/interview", json=body)
    assert response.status_code == status, response.text
    assert reason in json.dumps(response.json()["detail"])
