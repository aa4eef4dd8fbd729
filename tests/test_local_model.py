"""The LLM brain on a real model: SmolLM2-135M-Instruct served by llama.cpp's OpenAI-compatible server
(service/local_model.py, started once per session on a free loopback port), through litellm over real HTTP.

Each happy path runs once on it: POST /predict with brain=llm (a schema-constrained answer that names an element
of the page, written by the model, its tokens and latency in the response; the prompt measured with the server's
tokenizer and cut to the context the server was started with), a prompt that cannot fit refused before the call,
an experiment on two variants, a live simulation step in Chromium, an interview, and `twinsim llm serve` itself.
What a 135M model chooses is not asserted (it is not a faithful shopper); that its answer is real and grounded is.
The canned server (tests/support/openai_server.py) keeps the failures only it can stage: timeouts, 5xx, garbage.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from agent.experiments.prepared import prepare
from agent.experiments.runner import run_experiment
from agent.experiments.spec import ExperimentSpec
from agent.graph import TwinGraph
from agent.page.parse import parse_page
from agent.simulation import SimulationConfig, run_simulation
from personas.sources import load_personas
from service.api.app import create_app
from service.container import build_brains, build_llm_client, build_services
from service.local_model import free_port
from service.settings import Settings
from tests.conftest import PAGES, REPO, page
from tests.support.sample_twins import OPERA_USER

pytestmark = pytest.mark.integration

BANNER_PAGE = REPO / "examples" / "experiments" / "pages" / "product_deal_banner.html"
HISTORY = [
    {
        "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
        "rationale": "My old cable frayed.",
    }
]


def local_settings(local_model, data_dir, **extra) -> Settings:
    values = {
        "data_dir": data_dir,
        "llm_api_base": local_model.api_base,
        "llm_model": local_model.model,
        "llm_context_tokens": local_model.context_tokens,
        "llm_structured_output": "llama_cpp",
        "llm_timeout_s": 600.0,
        "llm_retries": 0,
        **extra,
    }  # the most the settings allow: a busy 2-core
    # machine took up to 5 minutes for one decision, and the server answers one request at a time
    return Settings(**values)


@pytest.fixture
def client_for(tmp_path, local_model, opera_dir):
    def make(**extra) -> TestClient:
        test_client = TestClient(create_app(local_settings(local_model, tmp_path, **extra)))
        test_client.__enter__()
        csv.field_size_limit(10**9)
        with open(opera_dir / "users_sample.csv", newline="") as users:
            row = next(csv.DictReader(users))
        assert test_client.post("/personas", json=row).status_code == 201
        test_client.persona_id = row["user_id"]
        made.append(test_client)
        return test_client

    made: list[TestClient] = []
    yield make
    for test_client in made:
        test_client.__exit__(None, None, None)


def predict(client, html: str, url: str) -> dict:
    """Right after start-up the service answers brain=llm with the embedded fallback while litellm loads (documented
    in the README): asked again until the client has loaded, so the answer checked is the model's."""
    deadline = time.monotonic() + 120
    while True:
        response = client.post(
            "/predict",
            json={
                "persona_id": client.persona_id,
                "brain": "llm",
                "page": {"simplified_html": html, "url": url},
                "history": HISTORY,
            },
        )
        assert response.status_code == 200, response.text
        body = response.json()
        if "still loading" not in (body.get("fallback_reason") or "") or time.monotonic() > deadline:
            return body
        time.sleep(0.5)


def test_predict_on_the_real_model_names_an_element_of_the_page_in_a_schema(client_for, local_model):
    html = page("search_results.html")
    body = predict(client_for(), html, "https://www.amazon.com/s?k=usb+c+cable")
    assert body["brain"] == "llm" and body["fallback_used"] is False, body["fallback_reason"]
    assert body["model"] == local_model.model
    details = body["details"]
    assert details["answer_format"].startswith("schema (llama_cpp)")
    names = {c.name for c in parse_page(html, url="https://www.amazon.com/s?k=usb+c+cable").candidates}
    assert body["action"]["type"] == "terminate" or body["action"]["name"] in names
    written = json.loads(details["raw"])  # the model's own text, valid JSON under the schema
    assert body["rationale"] == written["rationale"].strip() and body["rationale"]
    usage = body["usage"]
    assert usage["calls"] == 1 and usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert details["latency_s"] > 0 and body["latency_ms"] >= details["latency_s"] * 1000
    context = details["context"]
    # measured by the model's tokenizer, cut to the context the server was started with, close to the server's count
    assert context["counted_by"] == "the model server's tokenizer"
    assert context["prompt_tokens"] <= local_model.context_tokens - context["answer_tokens_kept"]
    assert context["elements_shown"] < context["elements_on_page"] == len(names)
    assert abs(context["prompt_tokens"] - usage["prompt_tokens"]) <= 0.05 * usage["prompt_tokens"] + 32


def test_a_search_page_fills_the_context_the_real_tokenizer_measures(local_model):
    """Element lines (long dotted names) cost the model two to three times the tokens per character of the rest of
    the prompt; the fit searches for the budget, so a search page is cut to what fits, not far below it."""
    from agent.brains.llm import ANSWER_TOKENS, LLMBrain
    from agent.llm.client import LLMClient
    from agent.llm.context_fit import CLOSE_ENOUGH, fit_prompt
    from agent.prediction_input import PredictionInput
    from agent.twin_context import TwinContext

    observation = parse_page(page("search_results.html"), url="https://www.amazon.com/s?k=usb+c+cable")
    brain = LLMBrain(
        LLMClient(api_base=local_model.api_base),
        local_model.model,
        context_tokens=local_model.context_tokens,
        grounding="textual_choices",
    )
    ctx = TwinContext.on_page(None, observation, PredictionInput())
    limit = local_model.context_tokens - ANSWER_TOKENS
    built = asyncio.run(
        fit_prompt(
            lambda budget: brain._compose(ctx, local_model.model, budget),
            brain._counter,
            context_tokens=local_model.context_tokens,
            answer_tokens=ANSWER_TOKENS,
            budget=brain.candidate_token_budget,
            elements_on_page=len(observation.candidates),
        )
    )
    context = built.details["context"]
    assert context["counted_by"] == "the model server's tokenizer"
    assert (1 - CLOSE_ENOUGH) * limit - 120 <= context["prompt_tokens"] <= limit  # 120: about two element lines
    assert 20 <= context["elements_shown"] < context["elements_on_page"]
    assert any(c.click_type == "product_link" for c in built.shown)


def test_as_a_multiple_choice_the_real_models_pick_decides_the_action(client_for, local_model):
    """The grounding `twinsim llm serve` prints: the model writes a rationale and an option's number, and the option
    decides the action (a click, a text field with its text, a drop-down's option, or leaving)."""
    html = page("product_page.html")
    body = predict(client_for(llm_grounding="textual_choices"), html, "https://www.amazon.com/dp/B0TWINSIM1")
    assert body["brain"] == "llm" and body["fallback_used"] is False, body["fallback_reason"]
    details = body["details"]
    assert details["answer_format"].startswith("schema (llama_cpp): a choice among the")
    written = json.loads(details["raw"])
    assert list(written)[:2] == ["rationale", "choice"] and body["rationale"] == written["rationale"].strip()
    assert details["choice"] == written["choice"]
    by_name = {c.name: c for c in parse_page(html, url="https://www.amazon.com/dp/B0TWINSIM1").candidates}
    action = body["action"]
    if action["type"] == "terminate":
        assert details["grounded_to"] == "leave the site"
    else:
        element = by_name[action["name"]]
        assert details["grounded_to"] == action["name"]
        typed = element.kind == "input" or (element.takes_text and bool(element.options))
        assert (action["type"] == "input") == typed and (action.get("text") == written.get("text"))


def test_a_prompt_that_cannot_fit_is_refused_before_the_call_and_the_embedded_brain_answers(client_for):
    body = predict(
        client_for(llm_context_tokens=600), page("product_page.html"), "https://www.amazon.com/dp/B0TWINSIM1"
    )
    assert body["fallback_used"] is True and body["brain"] == "embedded" and body["requested_brain"] == "llm"
    assert "not sent: the prompt needs" in body["fallback_reason"]
    assert "context holds 600" in body["fallback_reason"] and "--context" in body["fallback_reason"]


def test_an_experiment_runs_llm_twins_on_two_variants(local_model, tmp_path, opera_dir):
    pool = load_personas(opera_dir / "personas.jsonl")[:1]
    spec = ExperimentSpec.model_validate(
        {
            "name": "local model",
            "brain": "llm",
            "model": local_model.model,
            "concurrency": 1,
            "seed": 3,
            "samples_per_persona": 1,
            "population": {"ids": [p.id for p in pool]},
            "variants": [
                {"name": "A", "page": {"path": str(PAGES / "product_page.html")}},
                {"name": "B", "page": {"path": str(BANNER_PAGE)}},
            ],
        }
    )
    settings = local_settings(local_model, tmp_path, llm_concurrency=1)
    graph = TwinGraph(build_brains(settings, build_llm_client(settings)), memory=None)
    outcome = run_experiment(prepare(spec, pool, memory=None), graph=graph)
    assert sorted(s.variant for s in outcome.samples) == ["A", "B"]
    assert [(s.fallbacks, s.action_type in ("click", "input", "terminate")) for s in outcome.samples] == [
        (0, True)
    ] * 2, [(s.fallbacks, s.action_type, s.rationale) for s in outcome.samples]
    assert outcome.usage.calls == 2 and outcome.usage.completion_tokens > 0


def test_a_live_simulation_step_is_decided_by_the_real_model(local_model, tmp_path, opera_dir, shop_url):
    services = build_services(local_settings(local_model, tmp_path), warm=False)
    for persona in load_personas(opera_dir / "users_sample.csv"):
        services.store.put_persona(persona)
    config = SimulationConfig(url=shop_url + "/", persona_ids=[OPERA_USER], brain="llm", max_steps=1, seed=1)
    result = asyncio.run(run_simulation(config, [services.store.get_persona(OPERA_USER)], services.graph))
    [trace] = result.traces
    [step] = trace.steps
    assert step.brain == "llm" and not step.fallback_used, step.fallback_reason
    assert step.rationale


def test_an_interview_is_answered_by_the_real_model(client_for, local_model):
    client = client_for()
    response = client.post(
        f"/personas/{client.persona_id}/interview",
        json={"question": "What do you look at first when you buy a cable?", "brain": "llm"},
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["brain"] == "llm" and not answer["fallback_used"], answer.get("fallback_reason")
    assert answer["model"] == local_model.model and answer["answer"].strip()
    assert answer["usage"]["completion_tokens"] > 0


def test_the_server_keeps_logits_for_the_last_token_only(local_model):
    """llama-cpp-python's server keeps every prompt token's logits by default (an output-layer product per token
    and an n_ctx x vocab array in RAM); twinsim asks for none, so its server turns that off, and the server then
    refuses a request for logprobs, before reading the prompt."""
    response = httpx.post(
        f"{local_model.api_base}/completions", json={"prompt": "Hello", "max_tokens": 1, "logprobs": 1}, timeout=120
    )
    assert response.status_code == 500
    assert "logits_all=False" in response.json()["error"]["message"]


def test_twinsim_llm_serve_starts_the_model_prints_its_settings_and_stops(local_model):
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli.main", "llm", "serve", "--port", str(port), "--context", "1024"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=REPO,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 180  # a guard against hanging, not a speed assertion
        while not any(line.startswith("export TWINSIM_LLM_STRUCTURED_OUTPUT") for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            lines.append(proc.stdout.readline())
        settings = dict(
            line.removeprefix("export ").strip().split("=", 1) for line in lines if line.startswith("export ")
        )
        assert settings == {
            "TWINSIM_LLM_API_BASE": f"http://127.0.0.1:{port}/v1",
            "TWINSIM_LLM_MODEL": "openai/smollm2-135m-instruct",
            "TWINSIM_LLM_CONTEXT_TOKENS": "1024",
            "TWINSIM_LLM_TIMEOUT_S": "300",
            "TWINSIM_LLM_GROUNDING": "textual_choices",
            "TWINSIM_LLM_STRUCTURED_OUTPUT": "llama_cpp",
        }
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=10).json()
        assert [m["id"] for m in models["data"]] == ["smollm2-135m-instruct"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert proc.returncode == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2)


def test_twinsim_llm_serve_refuses_a_missing_model_file(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "service.cli.main", "llm", "serve", "--model", str(tmp_path / "nope.gguf")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 2 and "no GGUF model file at" in done.stderr and "Traceback" not in done.stderr
