"""The OPeRA paper's prompting protocol as a prompt style of the LLM brain (Wang et al. 2025, arXiv 2506.05606,
CC-BY-4.0; its sections and inputs as ../shared/data/opera/README.md describes them, in this project's words):
persona, history with rationales and the page's full simplified HTML; no memories, no page-facts block, no element
list; the answer in the protocol's output format. Through POST /predict and `twinsim eval`, over real HTTP to the
loopback OpenAI-compatible server."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agent.llm.opera_protocol import SYSTEM_PROMPT_ACTION, SYSTEM_PROMPT_RATIONALE
from agent.recorded_sessions import read_action_table
from personas.memory_texts import core_profile_text
from personas.sources import load_personas
from service.api.app import create_app
from service.cli.main import app as cli
from service.settings import Settings
from tests.conftest import page
from tests.support.openai_server import OpenAICompatibleServer

pytestmark = pytest.mark.integration
SMALL = Path(__file__).resolve().parent / "fixtures" / "opera_small"
PRODUCT = "search_results.belkin_boostcharge_usb_c_to_usb_c_cable_6_6ft_usb_if_certified.product_name"
HISTORY = [
    {
        "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
        "rationale": "My old cable frayed.",
    },
    {"action": {"type": "click", "name": "nav_bar.search_button"}},
]


@pytest.fixture(scope="module")
def client(tmp_path_factory, opera_dir):
    with OpenAICompatibleServer() as server:
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("protocol"),
            llm_api_base=server.base_url,
            llm_model="openai/twin-test",
            llm_vision="always",
            llm_timeout_s=5.0,
            llm_retries=0,
        )
        with TestClient(create_app(settings)) as test_client:
            csv.field_size_limit(10**9)
            with open(opera_dir / "users_sample.csv", newline="") as handle:
                row = next(csv.DictReader(handle))
            assert test_client.post("/personas", json=row).status_code == 201
            test_client.persona = test_client.get(f"/personas/{row['user_id']}").json()
            test_client.llm = server
            yield test_client


def predict(client, style: str | None, **extra) -> dict:
    options = {"prompt_style": style} if style else {}
    response = client.post(
        "/predict",
        json={
            "persona_id": client.persona["id"],
            "brain": "llm",
            "history": HISTORY,
            "options": options,
            "page": {"simplified_html": page("search_results.html"), "url": "https://www.amazon.com/s?k=usb+c+cable"},
            **extra,
        },
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_the_protocol_prompt_carries_the_full_html_persona_and_history_and_no_memories_or_facts(client):
    client.llm.enqueue(json.dumps({"type": "click", "name": PRODUCT}))  # the protocol's output: the action only
    body = predict(client, "opera_protocol")
    system, user = (m["content"] for m in client.llm.requests[-1]["messages"])

    assert system == SYSTEM_PROMPT_ACTION
    assert page("search_results.html").strip() in user  # the page's simplified HTML, whole
    from personas.persona import Persona

    assert core_profile_text(Persona.model_validate(client.persona)).strip() in user
    assert '1. {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"}' in user
    assert "Rationale: My old cable frayed." in user and '2. {"type": "click", "name": "nav_bar.search_button"}' in user
    for twinsim_only in ("<<<MEMORIES>>>", "What the page shows", "Elements you can act on", "# Who you are"):
        assert twinsim_only not in user
    assert body["action"] == {"type": "click", "name": PRODUCT} and body["brain"] == "llm"
    assert body["click_type"] == "product_link" and not body["fallback_used"]
    assert body["memories"] == []  # nothing recalled: the protocol shows no memories
    assert body["details"]["prompt_style"] == "opera_protocol" and body["rationale"] == ""

    client.llm.enqueue(json.dumps({"rationale": "r", "action": {"type": "terminate"}}))  # the same step, twinsim's way
    twinsim = predict(client, None)
    user = client.llm.requests[-1]["messages"][1]["content"]
    assert "<<<MEMORIES>>>" in user and "What the page shows" in user and twinsim["memories"]
    assert page("search_results.html").strip() not in user


def test_the_rationale_variant_reads_the_rationale_and_the_action_and_no_image_is_sent(client):
    client.llm.enqueue(
        json.dumps({"rationale": "Belkin is a brand I trust.", "action": {"type": "click", "name": PRODUCT}})
    )
    import base64
    import io

    from PIL import Image

    shot = io.BytesIO()
    Image.new("RGB", (64, 64), "white").save(shot, format="PNG")
    body = predict(
        client, "opera_protocol_rationale", screenshot={"base64": base64.b64encode(shot.getvalue()).decode()}
    )
    request = client.llm.requests[-1]
    assert request["messages"][0]["content"] == SYSTEM_PROMPT_RATIONALE
    assert isinstance(request["messages"][1]["content"], str)  # no image part: the paper's runs had none
    assert body["rationale"] == "Belkin is a brand I trust." and body["action"]["name"] == PRODUCT
    assert body["details"]["screenshot"] == "not sent: the OPeRA protocol gives the model no image"


def test_an_element_not_on_the_page_gets_one_retry_under_the_protocol_too(client):
    client.llm.enqueue(json.dumps({"type": "click", "name": "made.up"}), json.dumps({"type": "click", "name": PRODUCT}))
    body = predict(client, "opera_protocol")
    assert body["attempts"] == 2 and body["action"]["name"] == PRODUCT
    assert "'made.up' is not an element of this page" in client.llm.requests[-1]["messages"][-1]["content"]


def test_eval_prompt_style_opera_protocol_sends_each_steps_full_html_and_recalls_nothing(tmp_path):
    env = {"TWINSIM_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "TWINSIM_LLM_RETRIES": "0"}
    with OpenAICompatibleServer(default_reply='{"type": "click", "name": "nav_bar.search_button"}') as server:
        env["TWINSIM_LLM_API_BASE"] = server.base_url
        out = tmp_path / "protocol.json"
        result = CliRunner().invoke(
            cli,
            [
                "eval",
                "--actions",
                str(SMALL / "actions.parquet"),
                "--users",
                str(SMALL / "personas.jsonl"),
                "--brain",
                "llm",
                "--model",
                "openai/twin-test",
                "--prompt-style",
                "opera-protocol",
                "--limit",
                "2",
                "--concurrency",
                "1",
                "--out",
                str(out),
            ],
            env=env,
        )
        assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["run"]["prompt_style"] == "opera_protocol" and report["metrics"]["n"] == 11
    assert report["run"]["fallbacks"] == 0 and server.completions_served == 11
    steps = [s for session in read_action_table(SMALL / "actions.parquet", limit=2) for s in session.steps]
    prompts = [r["messages"][1]["content"] for r in server.requests]
    assert all(r["messages"][0]["content"] == SYSTEM_PROMPT_ACTION for r in server.requests)
    pages = [s.simplified_html.strip() for s in steps]
    assert all(any(html in prompt for prompt in prompts) for html in pages)  # every step's page went whole
    assert all(any(html in prompt for html in pages) for prompt in prompts)
    personas = {p.id: p for p in load_personas(SMALL / "personas.jsonl")}
    assert any(core_profile_text(p).strip() in prompts[0] for p in personas.values())
    assert not (tmp_path / "data" / "eval-store").exists()  # no memory store: nothing to recall


def test_an_unknown_prompt_style_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "eval",
            "--actions",
            str(SMALL / "actions.parquet"),
            "--users",
            str(SMALL / "personas.jsonl"),
            "--prompt-style",
            "the-paper",
        ],
        env={"TWINSIM_DATA_DIR": str(tmp_path)},
    )
    said = " ".join(result.output.replace("│", " ").split())  # rich wraps the message in a box
    assert (
        result.exit_code == 2 and "'the-paper': choose one of twinsim, opera-protocol, opera-protocol-rationale" in said
    )
