"""Comparing two runs on cases checkable by hand: twelve twins of whom ten reach the product page in run A and none
in run B, paired (the same personas: McNemar exact, p = 2 / 2^10) or not (other personas: the two-proportion z-test,
worked out below from its formula); Wilson intervals from their formula; Holm's correction over the comparison;
experiments' variants matched by name and paired through their samples; runs that cannot be compared refused."""

from __future__ import annotations

from math import erfc, sqrt

import pytest

from agent.comparison.comparison_error import ComparisonError
from agent.comparison.run_comparison import compare_runs, run_kind
from agent.experiments.samples import Sample
from agent.experiments.statistics import analyse
from agent.reporting.compare_report import render_comparison_html
from agent.simulation import SimulationConfig, SimulationResult, summarise
from agent.simulation.funnel import STAGES
from agent.simulation.trace import TwinTrace

Z = 1.959963984540054  # the 97.5% normal quantile


def wilson(successes: int, n: int) -> tuple[float, float]:
    p = successes / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


def simulation(ids: list[str], reached_product: set[str], seed: int = 0, max_steps: int = 5) -> dict:
    traces = [
        TwinTrace(
            persona_id=pid,
            start_url="http://shop.test/",
            seed=seed,
            outcome="left",
            stages=["search", "product"] if pid in reached_product else ["search"],
        )
        for pid in ids
    ]
    config = SimulationConfig(url="http://shop.test/", persona_ids=ids, seed=seed, max_steps=max_steps)
    return SimulationResult(
        config=config, started_at="t0", finished_at="t1", seconds=1.0, traces=traces, funnel=summarise(traces)
    ).model_dump(mode="json")


PEOPLE = [f"p{i}" for i in range(12)]


def metric(comparison: dict, key: str, variant: str | None = None) -> dict:
    metrics = (
        comparison["metrics"]
        if variant is None
        else next(v["metrics"] for v in comparison["variants"] if v["variant"] == variant)
    )
    return next(m for m in metrics if m["metric"] == key)


def test_the_same_twins_are_paired_and_tested_with_mcnemar():
    a = simulation(PEOPLE, set(PEOPLE[:10]))
    b = simulation(PEOPLE, set(), seed=1, max_steps=3)
    comparison = compare_runs(a, b, labels=("before", "after"))

    assert comparison["kind"] == "simulation" and comparison["pairing"]["paired"] is True
    product = metric(comparison, "stage:product")
    assert (product["a"]["successes"], product["a"]["n"], product["b"]["successes"]) == (10, 12, 0)
    assert product["a"]["rate"] == a["funnel"]["reached"][1]["twins"] / 12
    assert product["a"]["ci_low"] == pytest.approx(wilson(10, 12)[0]) and product["a"]["ci_high"] == pytest.approx(
        wilson(10, 12)[1]
    )
    assert product["b"]["ci_low"] == pytest.approx(0.0, abs=1e-12) and product["b"]["ci_high"] == pytest.approx(
        wilson(0, 12)[1]
    )
    assert product["difference"] == pytest.approx(-10 / 12)
    assert product["difference_ci_low"] <= -10 / 12 <= product["difference_ci_high"] < 0
    assert product["test"] == "McNemar exact (binomial)"
    assert product["table"] == {"both": 0, "a_only": 10, "b_only": 0, "neither": 2}
    assert product["p_value"] == pytest.approx(2 / 2**10)
    # one test per funnel stage and one outcome seen: Holm multiplies the smallest p-value by their number
    tests = len(STAGES) + 1
    assert comparison["settings"]["n_tests"] == tests
    assert product["p_adjusted"] == pytest.approx(tests * 2 / 2**10) and product["beyond_noise"] is True
    search = metric(comparison, "stage:search")
    assert (search["a"]["rate"], search["b"]["rate"], search["p_value"], search["beyond_noise"]) == (
        1.0,
        1.0,
        1.0,
        False,
    )
    assert [m["metric"] for m in comparison["metrics"]][-1] == "outcome:left"
    assert comparison["beyond_noise"] == [
        "reached product 83.3% in run A vs 0.0% in run B (-83.3 pp; McNemar exact (binomial), Holm-adjusted "
        f"p={tests * 2 / 2**10:.3g})"
    ]

    differences = {d["setting"]: (d["a"], d["b"]) for d in comparison["config"]["differences"]}
    assert differences == {"seed": (0, 1), "max steps": (5, 3)}
    assert "start page" in comparison["config"]["same"] and "personas" in comparison["config"]["same"]
    assert comparison["comparability"]["same_personas"] is True
    assert any("seeds differ (0 vs 1)" in note for note in comparison["comparability"]["notes"])


def test_other_twins_are_independent_samples_and_tested_with_the_z_test():
    others = [f"q{i}" for i in range(12)]
    comparison = compare_runs(simulation(PEOPLE, set(PEOPLE[:10])), simulation(others, set()))

    assert comparison["pairing"]["paired"] is False
    assert (
        comparison["comparability"]["personas_only_in_a"] == sorted(PEOPLE)
        and comparison["comparability"]["same_personas"] is False
    )
    product = metric(comparison, "stage:product")
    pooled = 10 / 24
    z = (0 / 12 - 10 / 12) / sqrt(pooled * (1 - pooled) * (1 / 12 + 1 / 12))
    assert product["test"] == "two-proportion z-test"  # every expected count is at least 5
    assert product["statistic"] == pytest.approx(z)
    assert product["p_value"] == pytest.approx(erfc(abs(z) / sqrt(2)))
    assert product["table"] == {"a_yes": 10, "a_no": 2, "b_yes": 0, "b_no": 12}
    assert product["beyond_noise"] is True
    assert any(
        "personas differ (12 only in run A, 12 only in run B)" in note for note in comparison["comparability"]["notes"]
    )


def samples(variant: str, bought: dict[str, list[bool]], offset: int = 0) -> list[Sample]:
    return [
        Sample(
            variant=variant,
            persona_id=pid,
            instance=i,
            action_type="click",
            click_type="purchase" if flag else None,
            element="buy" if flag else "x",
            purchase=flag,
            leave=not flag,
            segments={},
        )
        for pid, flags in bought.items()
        for i, flag in enumerate(flags, start=offset)
    ]


def experiment(runs: list[Sample], variants: list[str], seed: int = 0, population: dict | None = None) -> dict:
    spec = {
        "name": "banner",
        "variants": [{"name": v, "pages": [{"path": f"{v}.html"}]} for v in variants],
        "population": population or {"ids": ["m", "s"]},
        "population_size": 2,
        "samples_per_persona": 4,
        "brain": "embedded",
        "seed": seed,
    }
    return {
        "spec": spec,
        "status": "done",
        "analysis": analyse(runs, variants, seed=seed),
        "task": None,
        "cost": {"samples": len(runs), "fallbacks": 0},
    }


def test_experiments_pair_twins_through_their_samples_and_match_variants_by_name():
    base = samples("A", {"m": [True] * 4, "s": [True] * 4}) + samples("B", {"m": [False] * 4, "s": [True] * 4})
    later = samples("A", {"m": [False] * 4, "s": [False] * 4}) + samples("C", {"m": [True] * 4, "s": [True] * 4})
    a, b = experiment(base, ["A", "B"]), experiment(later, ["A", "C"], seed=3)

    paired = compare_runs(a, b, samples=(base, later))
    assert [v["variant"] for v in paired["variants"]] == ["A"]
    assert paired["comparability"]["variants_only_in_a"] == ["B"] and paired["comparability"]["variants_only_in_b"] == [
        "C"
    ]
    variant = paired["variants"][0]
    assert variant["pairing"]["paired"] is True
    bought = metric(paired, "purchase", "A")
    assert bought["a"] | {"ci_low": None, "ci_high": None} == a["analysis"]["variants"]["A"]["rates"]["purchase"] | {
        "ci_low": None,
        "ci_high": None,
    }
    assert (bought["a"]["rate"], bought["b"]["rate"]) == (1.0, 0.0)
    assert bought["table"] == {"both": 0, "a_only": 8, "b_only": 0, "neither": 0}
    assert bought["p_value"] == pytest.approx(2 / 2**8)
    assert {d["setting"] for d in paired["config"]["differences"]} == {
        "seed",
        "variants",
        "variant B: pages",
        "variant C: pages",
    }

    counted = compare_runs(a, b)  # no samples: the rates alone, as independent samples
    unpaired = metric(counted, "purchase", "A")
    assert counted["variants"][0]["pairing"]["paired"] is False
    assert unpaired["test"] == "Fisher exact"  # expected counts of 4, below 5
    assert unpaired["a"] == bought["a"] and unpaired["b"] == bought["b"]
    assert unpaired["p_value"] == pytest.approx(2 / 12870)  # two tables as extreme, each 1 / C(16, 8)

    shuffled = compare_runs(a, b, samples=(base[:-1], later))  # samples that do not add up to the results
    assert shuffled["variants"][0]["pairing"]["paired"] is False
    assert any("do not add up" in note for note in shuffled["comparability"]["notes"])


def test_different_populations_are_said():
    runs = samples("A", {"m": [True] * 6, "s": [False] * 6}) + samples("B", {"m": [True] * 6, "s": [False] * 6})
    comparison = compare_runs(experiment(runs, ["A", "B"]), experiment(runs, ["A", "B"], population={"sample": 2}))
    assert comparison["comparability"]["same_population"] is False
    assert any("populations differ" in note for note in comparison["comparability"]["notes"])
    assert all(m["p_value"] == 1.0 for v in comparison["variants"] for m in v["metrics"])


def test_runs_that_cannot_be_compared_are_refused_with_the_reason():
    runs = samples("A", {"m": [True]}) + samples("B", {"m": [False]})
    exp, sim = experiment(runs, ["A", "B"]), simulation(PEOPLE, set())
    with pytest.raises(ComparisonError, match="run x is an experiment and run y is a simulation"):
        compare_runs(exp, sim, labels=("x", "y"))
    with pytest.raises(ComparisonError, match="neither an experiment's results"):
        run_kind({"metrics": {}}, "run x")
    with pytest.raises(ComparisonError, match="has not finished"):
        compare_runs(exp | {"status": "running"}, exp)
    broken = sim | {"traces": [{"persona_id": "p0"}]}
    with pytest.raises(ComparisonError, match="malformed"):
        compare_runs(broken, sim)


def test_the_html_page_escapes_labels_and_marks_what_is_beyond_noise():
    comparison = compare_runs(
        simulation(PEOPLE, set(PEOPLE[:10])), simulation(PEOPLE, set()), labels=("<script>a</script>", "b")
    )
    page = render_comparison_html(comparison)
    assert "<script>" not in page and "&lt;script&gt;a&lt;/script&gt;" in page
    row = page.split("<tr class='significant'>", 1)[1].split("</tr>", 1)[0]
    assert "reached product" in row and "83.3% (10/12)" in row and ">yes<" in row
    assert page.count("<tr class='significant'>") == 1
