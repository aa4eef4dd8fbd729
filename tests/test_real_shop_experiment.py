"""An A/B experiment whose variants are two live configurations of the real third-party shop (django-oscar,
tests/support/oscar_shop): the catalogue as built against the same shop with every price 25% lower, each served
by its own instance. Every twin instance browses both through the experiment path the CLI and the API share;
the traces become paired samples and the analysis gives the paired statistics. The results say whether the twins
could see the difference, from what they were shown: a price change they read, a button colour they cannot."""

from __future__ import annotations

import httpx
import pytest

from agent.experiments.execution import ExperimentExecutor
from agent.experiments.planning import check_experiment
from agent.experiments.spec import parse_spec
from service.container import experiment_context
from tests.support.oscar_shop import start, stop
from tests.support.sample_twins import services_with_opera_personas
from tests.support.shown_prices import names_currency, shows

pytestmark = [pytest.mark.integration, pytest.mark.real_shop]

TWINS = 6
INSTANCES = 1
MAX_STEPS = 6


@pytest.fixture(scope="module")
def twins(tmp_path_factory, opera_dir):
    return services_with_opera_personas(tmp_path_factory.mktemp("real-shop-ab"), opera_dir, TWINS)


@pytest.fixture(scope="module")
def shops(oscar_shop_installed):
    control, sale = start("test-ab-control", "control"), start("test-ab-sale", "sale")
    yield control, sale
    stop(control.name)
    stop(sale.name)


def run(services, spec: dict) -> dict:
    context = experiment_context(services)
    return ExperimentExecutor(context).run(check_experiment(context, parse_spec(spec)))


def test_two_live_configurations_of_the_real_shop_give_paired_samples_and_statistics(twins, shops):
    services, personas = twins
    control, sale = shops
    spec = parse_spec(
        {
            "name": "real shop: every price 25% lower",
            "variants": [
                {"name": "A", "live_url": control.url, "max_steps": MAX_STEPS},
                {"name": "B", "live_url": sale.url, "max_steps": MAX_STEPS},
            ],
            "population": {"ids": [p.id for p in personas]},
            "samples_per_persona": INSTANCES,
            "targets": [
                "page.view_cart",
                "page.proceed_to_checkout",
            ],  # the basket link after adding, the basket's checkout
            "seed": 11,
        }
    )
    context = experiment_context(services)
    checked = check_experiment(context, spec)
    samples: list = []
    results = ExperimentExecutor(context).run(checked, on_samples=samples.extend)

    assert len(samples) == TWINS * INSTANCES * 2
    by_variant = {v: {(s.persona_id, s.instance): s for s in samples if s.variant == v} for v in ("A", "B")}
    assert set(by_variant["A"]) == set(by_variant["B"]) == {(p.id, i) for p in personas for i in range(INSTANCES)}
    for sample in samples:
        assert 1 <= sample.steps <= MAX_STEPS and sample.rationale
    # The same twin instance starts alike on both (same draws) and parts where the prices differ.
    assert any(by_variant["A"][key].rationale != by_variant["B"][key].rationale for key in by_variant["A"])
    assert any(names_currency(s.rationale, "£") for s in samples if s.variant == "B")  # a shop in pounds

    analysis = results["analysis"]
    assert {name: variant["n"] for name, variant in analysis["variants"].items()} == {"A": TWINS, "B": TWINS}
    comparison = analysis["comparisons"][0]
    assert (comparison["variant"], comparison["control"], comparison["paired"]) == ("B", "A", True)
    outcomes = comparison["outcomes"]
    assert {"purchase", "leave", "target:page.view_cart", "target:page.proceed_to_checkout"} <= set(outcomes)
    leave = outcomes["leave"]
    assert leave["test"].startswith("McNemar") and sum(leave["table"].values()) == TWINS * INSTANCES
    assert 0.0 <= leave["p_value"] <= leave["p_adjusted"] <= 1.0
    assert leave["difference_ci_low"] <= leave["difference"] <= leave["difference_ci_high"]

    # The twins could see the difference: a pair's first page already shows the lower prices.
    seen = results["visibility"]
    assert seen["live"] and seen["distinguishable"] is True and seen["indistinguishable_variants"] == []
    b = seen["variants"]["B"]
    assert b["pairs_compared"] == TWINS * INSTANCES and b["pairs_seeing_a_difference"] == TWINS * INSTANCES
    assert b["first_difference_at"] == {"/catalogue/": TWINS * INSTANCES}  # the shop's front page lists them
    example = b["examples"][0]
    assert any(shows(line, "£", "79.99") for line in example["control_only"])  # the trail running shoes, full price
    assert any(shows(line, "£", "59.99") for line in example["variant_only"])  # and 25% off


def test_a_change_the_twins_cannot_see_is_reported_as_not_visible(twins, oscar_shop_installed):
    """Red buttons instead of Oscar's blue and green: people see it, the twins' reading of the page does not (it
    keeps no colours). Every page a twin pair was shown at the same step reads the same on both, so the results say
    the twins could not see the difference, and the pairs behave identically. Both instances are fresh: an order
    placed on one in another test would change its stock counts, a difference twins can read."""
    services, personas = twins
    control, red = start("test-ab-plain", "control"), start("test-ab-red", "red_buttons")
    try:
        page = httpx.get(red.url, timeout=10, follow_redirects=True).text
        assert (
            "#b0302a" in page and "#b0302a" not in httpx.get(control.url, timeout=10, follow_redirects=True).text
        )  # people see it
        results = run(
            services,
            {
                "name": "real shop: red buttons",
                "seed": 11,
                "population": {"ids": [p.id for p in personas[:3]]},
                "variants": [
                    {"name": "A", "live_url": control.url, "max_steps": 4},
                    {"name": "B", "live_url": red.url, "max_steps": 4},
                ],
            },
        )
    finally:
        stop(control.name)
        stop(red.name)
    seen = results["visibility"]
    assert seen["distinguishable"] is False and seen["indistinguishable_variants"] == ["B"]
    b = seen["variants"]["B"]
    assert b["visible"] is False and b["pairs_compared"] == 3 and b["pages_compared"] >= 3
    assert b["pairs_seeing_a_difference"] == 0 and "could not see the difference" in seen["note"]
    rates = {
        name: {outcome: r["rate"] for outcome, r in variant["rates"].items()}
        for name, variant in results["analysis"]["variants"].items()
    }
    assert rates["A"] == rates["B"]  # same draws, same input: the same twins do the same things
