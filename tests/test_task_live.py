"""Twins given a task reach it more often than the same twins without it, on the demo shop in headless Chromium.

Paired design: 24 real OPeRA personas (the first of personas.jsonl), one instance each, the same simulation seed
(so each twin draws the same per-step seeds, agent/simulation/seeds.py), at most 6 actions, with and without the
task "buy the Voltix USB-C wall charger". Reached means a page whose address contains /dp/B0TWIN0006 (its product
page) after an action: judged by agent.tasks.judge in the task run, and by the same URL rule on the pages the
task-free twins came to. The sign test on the discordant pairs is one-sided (a task should help, not hurt),
declared before the run. Fixed seeds: the same code gives the same traces, so the test cannot flake on draws.
"""

from __future__ import annotations

import asyncio

import pytest
from scipy.stats import binomtest

from agent.reporting.simulation_report import render_simulation_html
from agent.simulation import SimulationConfig, run_simulation
from agent.tasks import Task, url_matches
from personas.sources import load_personas
from service.container import build_services
from service.settings import Settings

pytestmark = pytest.mark.integration

TWINS = 24
PRODUCT_PAGE = "/dp/B0TWIN0006"
TASK = Task.model_validate({"goal": "buy the Voltix USB-C wall charger", "success": {"url": PRODUCT_PAGE}})


@pytest.fixture(scope="module")
def twins(tmp_path_factory, opera_dir):
    services = build_services(Settings(data_dir=tmp_path_factory.mktemp("task-live")), warm=False)
    personas = load_personas(opera_dir / "personas.jsonl")[:TWINS]
    for persona in personas:
        services.store.put_persona(persona)
    return services, personas


def simulate(services, personas, url: str, task: Task | None):
    config = SimulationConfig(url=url + "/", persona_ids=[p.id for p in personas], max_steps=6, seed=0, task=task)
    return asyncio.run(run_simulation(config, personas, services.graph))


def test_twins_with_a_task_reach_it_more_often_than_without(twins, shop_url):
    services, personas = twins
    tasked = simulate(services, personas, shop_url, TASK)
    plain = simulate(services, personas, shop_url, None)

    with_task = [trace.task.reached for trace in tasked.traces]
    without = [any(url_matches(PRODUCT_PAGE, step.result_url) for step in trace.steps) for trace in plain.traces]
    task_only = sum(a and not b for a, b in zip(with_task, without, strict=True))
    plain_only = sum(b and not a for a, b in zip(with_task, without, strict=True))
    p_value = binomtest(task_only, task_only + plain_only, 0.5, alternative="greater").pvalue
    assert sum(with_task) > sum(without) and p_value < 0.05, (sum(with_task), sum(without), task_only, plain_only)

    for trace in tasked.traces:  # the run ends where the task is reached, and says after how many actions
        if trace.task.reached:
            assert trace.outcome in ("task_reached", "purchased")
            assert PRODUCT_PAGE in trace.task.url and 1 <= trace.task.step <= len(trace.steps)
            assert PRODUCT_PAGE in trace.steps[trace.task.step - 1].result_url
        else:
            assert trace.task.step is None and all(PRODUCT_PAGE not in (s.result_url or "") for s in trace.steps)
    summary = tasked.task
    assert summary["goal"] == TASK.goal and summary["judged"] == TWINS and summary["reached"] == sum(with_task)
    assert set(summary["per_persona"]) == {p.id for p in personas}
    assert plain.task is None and all(trace.task is None for trace in plain.traces)
    assert f"{sum(with_task)} of {TWINS} twins reached it" in render_simulation_html(tasked.model_dump(mode="json"))
