"""A task in an experiment spec: every twin pursues it, each sample says whether (and after how many actions) a page
it came to met the task's criteria, and the results give task success per variant, per persona and overall."""

from __future__ import annotations

import pytest

from agent.brains.embedded import EmbeddedBrain
from agent.experiments.prepared import prepare
from agent.experiments.results import experiment_results
from agent.experiments.runner import run_experiment
from agent.experiments.spec import ExperimentSpec, SpecError, parse_spec
from agent.reporting.experiment_report import render_report
from personas.sources import load_personas
from tests.conftest import PAGES

ORDER_PAGE = (
    "<html><head><title>Order placed</title></head><body><h1>Thank you, your order is placed</h1>"
    '<a name="nav_bar.homepage">Home</a></body></html>'
)


@pytest.fixture(scope="module")
def pool(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")


def spec(task) -> ExperimentSpec:
    """A: results page, then the order confirmation; B: results page, then the same results page again."""
    results = {"path": str(PAGES / "search_results.html"), "page_url": "https://www.amazon.com/s?k=usb+c+cable"}
    return ExperimentSpec.model_validate(
        {
            "name": "task",
            "task": task,
            "population": {"sample": 6, "seed": 1},
            "samples_per_persona": 4,
            "seed": 5,
            "variants": [
                {"name": "A", "pages": [results, {"simplified_html": ORDER_PAGE}]},
                {"name": "B", "pages": [results, results]},
            ],
        }
    )


def test_task_success_per_variant_persona_and_overall(pool):
    task = {"goal": "buy a usb c cable", "success": {"text": "your order is placed"}}
    prepared = prepare(spec(task), pool, memory=None)
    outcome = run_experiment(prepared, embedded=EmbeddedBrain())
    by_variant = {v: [s for s in outcome.samples if s.variant == v] for v in ("A", "B")}
    # A twin reaches the confirmation exactly when its first action did not end its visit (buy or leave).
    for sample in by_variant["A"]:
        assert sample.task_reached is (sample.steps == 1 and not sample.purchase and not sample.leave)
        assert sample.task_step == (1 if sample.task_reached else None)
    assert any(s.task_reached for s in by_variant["A"]) and not any(s.task_reached for s in by_variant["B"])
    results = experiment_results(prepared, outcome, embed=None)
    task_doc = results["task"]
    assert task_doc["goal"] == "buy a usb c cable" and task_doc["success"] == {"text": "your order is placed"}
    a = task_doc["variants"]["A"]
    assert a["judged"] == len(by_variant["A"]) and a["reached"] == sum(s.task_reached for s in by_variant["A"])
    assert set(a["per_persona"]) == {s.persona_id for s in by_variant["A"]}
    assert task_doc["variants"]["B"]["reached"] == 0
    assert "Every twin was asked to: <q>buy a usb c cable</q>" in render_report(results)


def test_a_task_without_criteria_steers_but_is_not_judged(pool):
    prepared = prepare(spec("buy a usb c cable"), pool, memory=None)
    outcome = run_experiment(prepared, embedded=EmbeddedBrain())
    assert all(s.task_reached is None and s.task_step is None for s in outcome.samples)
    assert experiment_results(prepared, outcome, embed=None)["task"]["variants"]["A"]["share"] is None


def test_a_bad_task_fails_the_spec():
    with pytest.raises(SpecError, match=r"task\.goal.*at most 2000 characters"):
        parse_spec(
            {
                "name": "x",
                "task": "x" * 100_000,
                "variants": [{"name": "A", "page": {"html": "<p>a</p>"}}, {"name": "B", "page": {"html": "<p>b</p>"}}],
            }
        )
