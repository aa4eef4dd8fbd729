"""An experiment says whether the twins could see the difference between its variants (what the chosen brain
reads of each page), so a "no difference" is never confused with "the change works nowhere"."""

from __future__ import annotations

import pytest

from agent.brains.embedded import EmbeddedBrain
from agent.experiments.prepared import prepare
from agent.experiments.results import experiment_results
from agent.experiments.runner import run_experiment
from agent.experiments.spec import ExperimentSpec
from agent.reporting.experiment_report import render_report
from personas.sources import load_personas
from tests.conftest import PAGES

PRODUCT = (PAGES / "product_page.html").read_text()


@pytest.fixture(scope="module")
def pool(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")


def spec(b_html: str, brain: str = "embedded") -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "name": "visibility",
            "brain": brain,
            "seed": 5,
            "samples_per_persona": 2,
            "population": {"sample": 4, "seed": 1},
            "variants": [
                {"name": "A", "page": {"simplified_html": PRODUCT}},
                {"name": "B", "page": {"simplified_html": b_html}},
            ],
        }
    )


def results_of(s: ExperimentSpec, pool) -> dict:
    prepared = prepare(s, pool, memory=None)
    return experiment_results(prepared, run_experiment(prepared, embedded=EmbeddedBrain()), embed=None)


def test_a_change_the_brain_cannot_read_is_reported_as_invisible(pool):
    # A style change: nothing the embedded brain reads (facts, elements, texts) changes.
    restyled = PRODUCT.replace('class="product-price"', 'class="product-price big-red"')
    results = results_of(spec(restyled), pool)
    seen = results["visibility"]
    assert seen["distinguishable"] is False and seen["indistinguishable_variants"] == ["B"]
    assert "cannot see the difference" in seen["note"]
    assert "The twins could not see the difference" in render_report(results)


def test_a_price_change_is_visible_and_named_by_page(pool):
    results = results_of(spec(PRODUCT.replace("$12.99", "$32.49")), pool)
    assert results["visibility"]["distinguishable"] is True
    assert results["visibility"]["pages_differing"] == {"B": [1]}
    assert "could not see the difference" not in render_report(results)


def test_baseline_brains_read_no_page_so_every_variant_is_invisible_to_them():
    from agent.experiments.pages import ResolvedPage
    from agent.experiments.visibility import visibility
    from agent.page.parse import parse_page

    pages = {
        name: [ResolvedPage(html, None, parse_page(html))]
        for name, html in (("A", PRODUCT), ("B", PRODUCT.replace("$12.99", "$32.49")))
    }
    assert visibility(pages, ["A", "B"], "repeat-previous")["distinguishable"] is False
    assert visibility(pages, ["A", "B"], "embedded")["distinguishable"] is True
    assert visibility(pages, ["A", "B"], "llm")["distinguishable"] is True
