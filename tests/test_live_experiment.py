"""A/B experiments on live variants: twins browse two URLs of the demo shop (`/` and `/?variant=b`) in
headless Chromium through the experiment path the CLI and the API share; their traces become paired samples,
the analysis is produced, and the same seed gives the same samples again."""

from __future__ import annotations

import pytest

from agent.browser import chromium as chromium_module
from agent.experiments.execution import ExperimentExecutor
from agent.experiments.planning import ExperimentRejected, check_experiment
from agent.experiments.spec import ExperimentSpec, SpecError, parse_spec
from service.container import experiment_context
from tests.support.sample_twins import EXAMPLE, OPERA_USER, services_with_sample_twins

pytestmark = pytest.mark.integration

# A real OPeRA user (users_sample.csv) and a hand-written persona (personas/examples).
PERSONAS = [OPERA_USER, EXAMPLE]
INSTANCES = 2
MAX_STEPS = 3  # enough to search and open results; each step is a real page load


@pytest.fixture(scope="module")
def services(tmp_path_factory, opera_dir):
    return services_with_sample_twins(tmp_path_factory.mktemp("live-experiment"), opera_dir)


def live_spec(shop_url: str, **overrides) -> ExperimentSpec:
    data = {
        "name": "demo shop: sale banner",
        "variants": [
            {"name": "A", "live_url": shop_url + "/", "max_steps": MAX_STEPS},
            {"name": "B", "live_url": shop_url + "/?variant=b", "max_steps": MAX_STEPS},
        ],
        "population": {"ids": PERSONAS},
        "samples_per_persona": INSTANCES,
        "targets": ["search_results"],
        "seed": 7,
        **overrides,
    }
    return parse_spec(data)


def run(services, spec: ExperimentSpec) -> tuple[dict, list]:
    checked = check_experiment(experiment_context(services), spec)
    kept: list = []
    results = ExperimentExecutor(experiment_context(services)).run(checked, on_samples=kept.extend)
    return results, kept


def test_live_variants_give_paired_samples_an_analysis_and_repeat_with_the_seed(services, shop_url):
    spec = live_spec(shop_url)
    results, samples = run(services, spec)

    assert len(samples) == len(PERSONAS) * INSTANCES * 2
    by_variant = {v: {(s.persona_id, s.instance): s for s in samples if s.variant == v} for v in ("A", "B")}
    expected_pairs = {(p, i) for p in PERSONAS for i in range(INSTANCES)}
    assert set(by_variant["A"]) == set(by_variant["B"]) == expected_pairs  # every twin instance saw both variants
    for sample in samples:
        assert 1 <= sample.steps <= MAX_STEPS
        assert sample.rationale
        assert not (sample.purchase and sample.leave)
        if sample.action_type == "terminate":
            assert sample.element is None and sample.leave
        else:
            assert sample.element  # the name the twin acted on first, on the live page
    # Twins read the live shop: first actions name its elements (search box, results, products), not nothing.
    assert any(s.action_type in ("click", "input") for s in samples)
    assert any(s.steps > 1 for s in samples)

    analysis = results["analysis"]
    assert set(analysis["variants"]) == {"A", "B"}
    assert all(v["n"] == len(PERSONAS) * INSTANCES for v in analysis["variants"].values())
    comparison = analysis["comparisons"][0]
    assert (comparison["variant"], comparison["control"], comparison["paired"]) == ("B", "A", True)

    again, repeated = run(services, spec)

    def key(s):
        return (s.variant, s.persona_id, s.instance)

    assert [s.model_dump() for s in sorted(repeated, key=key)] == [s.model_dump() for s in sorted(samples, key=key)]
    assert again["analysis"]["variants"] == analysis["variants"]


def test_live_variant_specs_are_checked_before_any_twin_runs(services, shop_url, monkeypatch, tmp_path):
    with pytest.raises(SpecError, match="both live_url and pages"):
        parse_spec(
            {
                "name": "x",
                "variants": [
                    {"name": "A", "live_url": shop_url, "page": {"simplified_html": "<a name='x'>x</a>"}},
                    {"name": "B", "live_url": shop_url},
                ],
            }
        )
    with pytest.raises(SpecError, match="only http:// and https:// are browsed"):
        parse_spec(
            {
                "name": "x",
                "variants": [{"name": "A", "live_url": "file:///etc/passwd"}, {"name": "B", "live_url": shop_url}],
            }
        )
    assert live_spec(shop_url).predictions_needed(2) == 2 * INSTANCES * 2 * MAX_STEPS

    with pytest.raises(ExperimentRejected, match=r"variant 'B' live_url: could not fetch .*no page answered"):
        check_experiment(
            experiment_context(services),
            live_spec(
                shop_url,
                variants=[
                    {"name": "A", "live_url": shop_url + "/"},
                    {"name": "B", "live_url": shop_url + "/no-such-page"},
                ],
            ),
        )

    # No Chromium on this machine (nothing at the configured path, none on PATH): refused with how to install it.
    monkeypatch.setattr(chromium_module, "CHROMIUM_PATH", str(tmp_path / "no-chromium"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(
        ExperimentRejected, match=r"live variant\(s\) 'A', 'B' need Chromium: .*scripts/setup --browser"
    ):
        check_experiment(experiment_context(services), live_spec(shop_url))
