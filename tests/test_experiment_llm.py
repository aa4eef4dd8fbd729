"""Experiments with the LLM brain through the full graph: real HTTP through litellm to the OpenAI-compatible
server on 127.0.0.1, bounded concurrency, the response cache on a re-run, and the budget stopping a run."""

from __future__ import annotations

import json

import pytest

from agent.experiments.prepared import prepare
from agent.experiments.runner import BudgetExceeded, run_experiment
from agent.experiments.spec import ExperimentSpec
from agent.graph import TwinGraph
from personas.sources import load_personas
from service.container import build_brains, build_llm_client
from service.settings import Settings
from tests.conftest import PAGES, REPO
from tests.support.openai_server import OpenAICompatibleServer

pytestmark = pytest.mark.integration

BANNER_PAGE = REPO / "examples" / "experiments" / "pages" / "product_deal_banner.html"


def buy_the_deal_if_shown(body: dict) -> str:
    """The scripted shopper: clicks the deal banner's Add to Cart when the page has one, else leaves."""
    prompt = "".join(m.get("content") or "" for m in body["messages"])
    if "deal_banner.add_to_cart" in prompt:
        return json.dumps(
            {
                "rationale": "20% off with one-day delivery, I'll take it.",
                "action": {"type": "click", "name": "deal_banner.add_to_cart"},
            }
        )
    return json.dumps({"rationale": "Nothing here convinces me, I'm leaving.", "action": {"type": "terminate"}})


@pytest.fixture(scope="module")
def pool(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")[:3]


def llm_spec(pool, **overrides) -> ExperimentSpec:
    data = {
        "name": "llm",
        "brain": "llm",
        "model": "openai/twin-test",
        "concurrency": 2,
        "seed": 3,
        "samples_per_persona": 4,
        "targets": ["deal_banner"],
        "population": {"ids": [p.id for p in pool]},
        "variants": [
            {"name": "A", "page": {"path": str(PAGES / "product_page.html")}},
            {"name": "B", "page": {"path": str(BANNER_PAGE)}},
        ],
    }
    data.update(overrides)
    return ExperimentSpec.model_validate(data)


def graph_for(server: OpenAICompatibleServer, tmp_path, cache: bool = True) -> TwinGraph:
    settings = Settings(data_dir=tmp_path, llm_api_base=server.base_url, llm_retries=0, llm_concurrency=2)
    llm = build_llm_client(settings, cache_path=tmp_path / "llm_cache.sqlite" if cache else None)
    return TwinGraph(build_brains(settings, llm), memory=None)


def test_llm_twins_act_on_what_their_variant_shows_with_bounded_concurrency_and_a_cache(pool, tmp_path):
    spec = llm_spec(pool)
    prepared = prepare(spec, pool, memory=None)
    with OpenAICompatibleServer(policy=buy_the_deal_if_shown) as server:
        graph = graph_for(server, tmp_path)
        outcome = run_experiment(prepared, graph=graph)
        served = server.completions_served
        assert served == 3 * 4 * 2  # one call per twin instance and variant
        assert 1 <= server.max_in_flight <= spec.concurrency
        again = run_experiment(prepared, graph=graph_for(server, tmp_path))
        assert server.completions_served == served  # the re-run was answered from the response cache
    a = [s for s in outcome.samples if s.variant == "A"]
    b = [s for s in outcome.samples if s.variant == "B"]
    assert all(s.leave and not s.purchase for s in a)
    assert all(s.purchase and s.target_clicks["deal_banner"] for s in b)
    assert outcome.usage.calls == served and outcome.usage.prompt_tokens > 0
    assert [s.model_dump() for s in again.samples] == [s.model_dump() for s in outcome.samples]


def test_the_run_stops_when_the_actual_spend_passes_the_budget(pool, tmp_path):
    """A priced model name (litellm's price map) served by the loopback server: the run stops over budget and
    keeps what it finished."""
    spec = llm_spec(pool, model="openai/gpt-4o-mini", budget_usd=0.0005, samples_per_persona=10, concurrency=1)
    prepared = prepare(spec, pool, memory=None)
    handed_out = []
    with OpenAICompatibleServer(policy=buy_the_deal_if_shown) as server:
        with pytest.raises(BudgetExceeded, match="over the budget"):
            run_experiment(prepared, graph=graph_for(server, tmp_path, cache=False), on_samples=handed_out.extend)
        served = server.completions_served
    assert 0 < len(handed_out) == served < 3 * 10 * 2
