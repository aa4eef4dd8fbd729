"""Experiment statistics against textbook tables recomputed here with scipy/statsmodels and by hand; pairing,
the Holm correction, seeded determinism, segments and bad input."""

from __future__ import annotations

import json
from math import asin, sqrt

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from agent.experiments.samples import Sample
from agent.experiments.statistics import ExperimentInputError, analyse


def _sample(
    variant,
    persona,
    instance=0,
    *,
    purchase=False,
    leave=False,
    action_type="click",
    click_type="review",
    element="reviews.see_all",
    targets=None,
    segments=None,
):
    if action_type != "click":
        click_type = None
    if action_type == "terminate":
        element = None
    return Sample(
        variant=variant,
        persona_id=persona,
        instance=instance,
        action_type=action_type,
        click_type=click_type,
        element=element,
        purchase=purchase,
        leave=leave,
        target_clicks=targets or {},
        segments=segments or {},
    )


def _paired(both: int, control_only: int, variant_only: int, neither: int) -> list[Sample]:
    """Twins p0..pN in A and B; the 2x2 table of purchases is exactly the one given."""
    cells = (
        [(True, True)] * both
        + [(True, False)] * control_only
        + [(False, True)] * variant_only
        + [(False, False)] * neither
    )
    samples = []
    for i, (a, b) in enumerate(cells):
        samples += [_sample("A", f"p{i}", purchase=a), _sample("B", f"p{i}", purchase=b)]
    return samples


def _independent(yes_a: int, n_a: int, yes_b: int, n_b: int) -> list[Sample]:
    """Different twins in A and B: unpaired."""
    return [_sample("A", f"a{i}", purchase=i < yes_a) for i in range(n_a)] + [
        _sample("B", f"b{i}", purchase=i < yes_b) for i in range(n_b)
    ]


def test_mcnemar_on_agresti_approval_table_matches_statsmodels_and_the_formula():
    # Agresti, Categorical Data Analysis: approval of the president at two surveys, 1600 people.
    result = analyse(_paired(794, 150, 86, 570), ["A", "B"], n_bootstrap=200)
    purchase = result["comparisons"][0]["outcomes"]["purchase"]
    assert result["comparisons"][0]["paired"] is True
    assert purchase["test"] == "McNemar chi-square (continuity-corrected)"
    assert purchase["table"] == {"both": 794, "control_only": 150, "variant_only": 86, "neither": 570}
    by_hand = (abs(150 - 86) - 1) ** 2 / (150 + 86)
    assert purchase["statistic"] == pytest.approx(by_hand)
    assert purchase["p_value"] == pytest.approx(stats.chi2.sf(by_hand, 1))
    assert purchase["p_value"] == pytest.approx(mcnemar([[794, 150], [86, 570]], exact=False, correction=True).pvalue)
    assert purchase["difference"] == pytest.approx((880 - 944) / 1600)
    assert purchase["odds_ratio"] == pytest.approx(86 / 150)


def test_mcnemar_is_exact_binomial_when_few_pairs_disagree():
    result = analyse(_paired(10, 2, 8, 10), ["A", "B"], n_bootstrap=200)
    purchase = result["comparisons"][0]["outcomes"]["purchase"]
    assert purchase["test"] == "McNemar exact (binomial)"
    assert purchase["p_value"] == pytest.approx(stats.binomtest(2, 10, 0.5).pvalue)
    assert purchase["p_value"] == pytest.approx(0.109375)  # 2 * P(X <= 2), X ~ Bin(10, 1/2) = 2 * 56 / 1024


def test_no_discordant_pairs_gives_p_one_not_zero():
    purchase = analyse(_paired(5, 0, 0, 5), ["A", "B"], n_bootstrap=100)["comparisons"][0]["outcomes"]["purchase"]
    assert purchase["p_value"] == 1.0 and purchase["difference"] == 0


def test_fisher_on_the_lady_tasting_tea_table():
    result = analyse(_independent(3, 4, 1, 4), ["A", "B"], n_bootstrap=200)
    purchase = result["comparisons"][0]["outcomes"]["purchase"]
    assert result["comparisons"][0]["paired"] is False
    assert purchase["test"] == "Fisher exact"
    assert purchase["p_value"] == pytest.approx(stats.fisher_exact([[3, 1], [1, 3]]).pvalue)
    assert purchase["p_value"] == pytest.approx(34 / 70)  # (1 + 16 + 16 + 1) / C(8, 4)
    # a zero cell: Haldane-Anscombe corrected odds ratio, finite
    zero = analyse(_independent(0, 6, 4, 6), ["A", "B"], n_bootstrap=100)["comparisons"][0]["outcomes"]["purchase"]
    assert zero["odds_ratio"] == pytest.approx((4.5 * 6.5) / (2.5 * 0.5))


def test_two_proportion_z_test_when_every_expected_count_is_large():
    result = analyse(_independent(45, 100, 60, 100), ["A", "B"], n_bootstrap=200)
    purchase = result["comparisons"][0]["outcomes"]["purchase"]
    assert purchase["test"] == "two-proportion z-test"
    pooled = 105 / 200
    z = (0.60 - 0.45) / sqrt(pooled * (1 - pooled) * (1 / 100 + 1 / 100))
    assert purchase["statistic"] == pytest.approx(z)
    assert purchase["p_value"] == pytest.approx(2 * stats.norm.sf(z))
    assert purchase["cohens_h"] == pytest.approx(2 * asin(sqrt(0.6)) - 2 * asin(sqrt(0.45)))
    assert purchase["odds_ratio"] == pytest.approx((60 / 40) / (45 / 55))


def test_chi_square_on_action_types_and_cramers_v():
    control = [("click", 30), ("input", 10), ("terminate", 10)]
    variant = [("click", 15), ("input", 15), ("terminate", 20)]
    samples = []
    for variant_name, counts, prefix in (("A", control, "a"), ("B", variant, "b")):
        i = 0
        for action, count in counts:
            for _ in range(count):
                samples.append(_sample(variant_name, f"{prefix}{i}", action_type=action, leave=action == "terminate"))
                i += 1
    dist = analyse(samples, ["A", "B"], n_bootstrap=100)["comparisons"][0]["distributions"]["action_type"]
    table = np.array([[30, 10, 10], [15, 15, 20]])
    chi2, p, dof, _ = stats.chi2_contingency(table)
    assert dist["applicable"] and dist["table"] == table.tolist() and dist["dof"] == dof == 2
    assert dist["statistic"] == pytest.approx(chi2) and dist["p_value"] == pytest.approx(p)
    assert dist["cramers_v"] == pytest.approx(sqrt(chi2 / (table.sum() * 1)))


def test_chi_square_drops_unseen_categories_and_says_when_it_cannot_run():
    samples = [_sample("A", f"a{i}", click_type="review" if i % 2 else "search") for i in range(20)] + [
        _sample("B", f"b{i}", click_type="review") for i in range(20)
    ]
    result = analyse(samples, ["A", "B"], n_bootstrap=100)
    click = result["comparisons"][0]["distributions"]["click_type"]
    assert click["categories"] == ["review", "search"] and click["applicable"]
    action = result["comparisons"][0]["distributions"]["action_type"]  # everyone clicked: input/terminate dropped
    assert action["applicable"] is False and "only one action type" in action["reason"]
    assert action["p_value"] is None and action["p_adjusted"] is None and action["significant"] is False
    no_clicks = analyse(
        [
            _sample("A", "a", action_type="terminate", leave=True),
            _sample("A", "b"),
            _sample("B", "a", action_type="terminate", leave=True),
            _sample("B", "b", action_type="input"),
        ],
        ["A", "B"],
        n_bootstrap=50,
    )["comparisons"][0]["distributions"]["click_type"]
    assert no_clicks["applicable"] is False and "'B' has no click type" in no_clicks["reason"]


def test_rates_distributions_and_intervals_are_hand_checkable():
    samples = [
        _sample(
            "A",
            f"a{i}",
            purchase=i < 30,
            leave=i >= 90,
            action_type="terminate" if i >= 90 else "click",
            element=f"product_{i % 3}",
            targets={"deal_banner": i < 20},
        )
        for i in range(100)
    ]
    samples += [_sample("B", f"b{i}") for i in range(100)]
    result = analyse(samples, ["A", "B"], targets=["deal_banner"], top_elements=2)
    a = result["variants"]["A"]
    assert a["n"] == 100 and a["n_personas"] == 100
    assert a["action_type"]["counts"] == {"click": 90, "input": 0, "terminate": 10}
    assert a["action_type"]["shares"]["terminate"] == pytest.approx(0.10)
    assert a["click_type"]["counts"] == {"review": 90} and a["click_type"]["n"] == 90
    assert [e["element"] for e in a["top_elements"]] == ["product_0", "product_1"]  # 30 each, ties by name
    purchase = a["rates"]["purchase"]
    assert (purchase["successes"], purchase["n"], purchase["rate"]) == (30, 100, 0.30)
    wald = 1.96 * sqrt(0.3 * 0.7 / 100)  # the bootstrap interval of a proportion is close to Wald's at n=100
    assert purchase["ci_low"] == pytest.approx(0.30 - wald, abs=0.02)
    assert purchase["ci_high"] == pytest.approx(0.30 + wald, abs=0.02)
    assert a["rates"]["target:deal_banner"]["rate"] == 0.20
    assert result["variants"]["B"]["rates"]["purchase"] == {
        "successes": 0,
        "n": 100,
        "rate": 0.0,
        "ci_low": 0.0,
        "ci_high": 0.0,
    }
    json.dumps(result, allow_nan=False)  # strict JSON: no NaN or infinity anywhere


def test_pairing_is_detected_only_when_every_twin_is_in_both_variants():
    samples = _paired(20, 10, 5, 15)
    assert analyse(samples, ["A", "B"], n_bootstrap=50)["comparisons"][0]["paired"] is True
    missing = analyse(samples[:-1], ["A", "B"], n_bootstrap=50)["comparisons"][0]
    assert missing["paired"] is False and "only one variant" in missing["pairing"]
    assert missing["outcomes"]["purchase"]["test"] in ("two-proportion z-test", "Fisher exact")
    repeated = [*samples, _sample("B", "p0", purchase=True), _sample("A", "extra")]
    twice = analyse(repeated, ["A", "B"], n_bootstrap=50)["comparisons"][0]
    assert twice["paired"] is False and "more than once" in twice["pairing"]
    # instances are part of the twin: p0#0 and p0#1 are two twins
    instanced = [_sample(v, "p", i, purchase=(i + (v == "B")) % 2 == 0) for v in "AB" for i in range(8)]
    assert analyse(instanced, ["A", "B"], n_bootstrap=50)["comparisons"][0]["paired"] is True


def test_paired_bootstrap_interval_is_narrower_for_twins_that_act_alike():
    """Pairing is worth it: same outcomes, pairs broken by renaming B's twins, the interval widens."""
    paired = _paired(40, 2, 12, 46)
    unpaired = [s.model_copy(update={"persona_id": "x" + s.persona_id}) if s.variant == "B" else s for s in paired]
    p = analyse(paired, ["A", "B"])["comparisons"][0]["outcomes"]["purchase"]
    u = analyse(unpaired, ["A", "B"])["comparisons"][0]["outcomes"]["purchase"]
    assert p["difference"] == pytest.approx(u["difference"]) == pytest.approx(0.10)
    assert (p["difference_ci_high"] - p["difference_ci_low"]) < 0.7 * (u["difference_ci_high"] - u["difference_ci_low"])
    assert p["difference_ci_low"] > 0 and p["significant"]  # 12 vs 2 discordant pairs


def test_bootstrap_intervals_match_scipy_bootstrap():
    """The intervals draw counts (binomial, multinomial for pairs) instead of resampling rows: same distribution."""
    samples = _paired(40, 2, 12, 46)
    result = analyse(samples, ["A", "B"], n_bootstrap=20_000)
    a = np.array([s.purchase for s in samples if s.variant == "A"], dtype=float)
    b = np.array([s.purchase for s in samples if s.variant == "B"], dtype=float)
    rng = np.random.default_rng(0)
    rate = stats.bootstrap((a,), np.mean, n_resamples=20_000, method="percentile", rng=rng).confidence_interval
    ours = result["variants"]["A"]["rates"]["purchase"]
    assert (ours["ci_low"], ours["ci_high"]) == pytest.approx((rate.low, rate.high), abs=0.011)

    def difference(x, y, axis=-1):
        return np.mean(y, axis=axis) - np.mean(x, axis=axis)

    for paired in (True, False):
        ci = stats.bootstrap(
            (a, b), difference, n_resamples=20_000, paired=paired, method="percentile", rng=rng
        ).confidence_interval
        sample_set = (
            samples if paired else [s.model_copy(update={"instance": 1}) if s.variant == "B" else s for s in samples]
        )
        diff = analyse(sample_set, ["A", "B"], n_bootstrap=20_000)["comparisons"][0]["outcomes"]["purchase"]
        assert diff["difference_ci_low"] == pytest.approx(ci.low, abs=0.011)
        assert diff["difference_ci_high"] == pytest.approx(ci.high, abs=0.011)


def _all_tests(result: dict) -> list[dict]:
    comparisons = result["comparisons"] + [c for s in result["segments"] for c in s["comparisons"]]
    return [
        t for c in comparisons for t in list(c["outcomes"].values()) + list((c.get("distributions") or {}).values())
    ]


def _experiment(seed: int = 1) -> list[Sample]:
    rng = np.random.default_rng(seed)
    samples = []
    for variant, buy in (("A", 0.2), ("B", 0.45), ("C", 0.25)):
        for p in range(60):
            action = ["click", "input", "terminate"][rng.choice(3, p=[0.6, 0.2, 0.2])]
            samples.append(
                _sample(
                    variant,
                    f"p{p}",
                    purchase=bool(rng.random() < buy),
                    leave=action == "terminate",
                    action_type=action,
                    click_type=["review", "search", "purchase"][p % 3],
                    targets={"banner": bool(rng.random() < buy)},
                    segments={"conscientiousness": "high" if p % 2 else "low", "prime": "member" if p < 6 else "not"},
                )
            )
    return samples


def test_holm_correction_over_every_p_value_matches_multipletests():
    result = analyse(_experiment(), ["A", "B", "C"], targets=["banner"], n_bootstrap=200)
    tests = [t for t in _all_tests(result) if t["p_value"] is not None]
    reject, adjusted, _, _ = multipletests([t["p_value"] for t in tests], alpha=0.05, method="holm")
    assert result["correction"]["method"] == "holm" and result["correction"]["n_tests"] == len(tests)
    assert [t["p_adjusted"] for t in tests] == pytest.approx(list(adjusted))
    assert [t["significant"] for t in tests] == list(reject)
    assert any(t["significant"] for t in tests) and not all(t["significant"] for t in tests)
    bh = analyse(_experiment(), ["A", "B", "C"], targets=["banner"], n_bootstrap=200, correction="fdr_bh")
    assert bh["correction"]["method"] == "fdr_bh"
    bh_tests = [t for t in _all_tests(bh) if t["p_value"] is not None]
    assert [t["p_adjusted"] for t in bh_tests] == pytest.approx(
        list(multipletests([t["p_value"] for t in bh_tests], method="fdr_bh")[1])
    )


def test_segments_are_compared_within_buckets_and_small_buckets_are_skipped():
    result = analyse(_experiment(), ["A", "B", "C"], n_bootstrap=100)
    done = {(s["dimension"], s["bucket"]) for s in result["segments"]}
    assert done == {("conscientiousness", "high"), ("conscientiousness", "low"), ("prime", "not")}
    skipped = result["segments_skipped"]
    assert [(s["dimension"], s["bucket"]) for s in skipped] == [("prime", "member")]
    assert "fewer than 10 samples" in skipped[0]["reason"] and skipped[0]["sizes"] == {"A": 6, "B": 6, "C": 6}
    high = next(s for s in result["segments"] if s["bucket"] == "high")
    samples = [s for s in _experiment() if s.segments["conscientiousness"] == "high"]
    rate_b = np.mean([s.purchase for s in samples if s.variant == "B"])
    assert high["rates"]["B"]["purchase"] == pytest.approx(rate_b)
    assert high["comparisons"][0]["paired"] and high["comparisons"][0]["n_control"] == 30
    assert analyse(_experiment(), ["A", "B", "C"], n_bootstrap=100, min_segment_size=5)["segments_skipped"] == []


def test_same_seed_same_results_and_figures_do_not_move_when_a_variant_is_added():
    first = analyse(_experiment(), ["A", "B", "C"], targets=["banner"], n_bootstrap=300, seed=7)
    again = analyse(_experiment(), ["A", "B", "C"], targets=["banner"], n_bootstrap=300, seed=7)
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    other = analyse(_experiment(), ["A", "B", "C"], targets=["banner"], n_bootstrap=300, seed=8)
    assert other["variants"]["A"]["rates"] != first["variants"]["A"]["rates"]  # intervals are resampled
    two = analyse(
        [s for s in _experiment() if s.variant != "C"], ["A", "B"], targets=["banner"], n_bootstrap=300, seed=7
    )
    assert two["variants"]["A"] == first["variants"]["A"]
    assert (
        two["comparisons"][0]["outcomes"]["purchase"]["difference_ci_low"]
        == first["comparisons"][0]["outcomes"]["purchase"]["difference_ci_low"]
    )


@pytest.mark.parametrize(
    ("samples", "variants", "kwargs", "message"),
    [
        ([], ["A"], {}, "at least two variants"),
        ([_sample("A", "p")], ["A", "A"], {}, "unique"),
        ([_sample("A", "p")], ["A", "B"], {}, r"\['B'\] have no samples"),
        ([_sample("A", "p"), _sample("B", "p"), _sample("Z", "p")], ["A", "B"], {}, "unknown variant 'Z'"),
        ([_sample("A", "p"), _sample("B", "p")], ["A", "B"], {"alpha": 1.5}, "alpha must be between 0 and 1"),
        ([_sample("A", "p"), _sample("B", "p")], ["A", "B"], {"n_bootstrap": 0}, "n_bootstrap"),
        (
            [_sample("A", "p"), _sample("B", "p")],
            ["A", "B"],
            {"correction": "magic"},
            "unknown multiple-testing correction",
        ),
        ([_sample("A", "p"), _sample("B", "p")], ["A", "B"], {"targets": [""]}, "target element names"),
    ],
)
def test_bad_input_raises_a_value_error_with_the_reason(samples, variants, kwargs, message):
    with pytest.raises(ExperimentInputError, match=message) as error:
        analyse(samples, variants, **kwargs)
    assert isinstance(error.value, ValueError)
