"""Populations on the 52 real OPeRA personas: ids, trait filters, stratified samples, segments, bad input."""

from __future__ import annotations

from collections import Counter

import pytest
from pydantic import ValidationError

from personas.population import (
    PopulationError,
    PopulationSpec,
    segment_buckets,
    select_population,
    trait_bucket,
)
from personas.sources import load_personas


@pytest.fixture(scope="module")
def pool(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")


def test_ids_select_exactly_those_personas(pool):
    ids = [pool[3].id, pool[0].id]
    chosen = select_population(pool, PopulationSpec(ids=ids))
    assert [p.id for p in chosen] == sorted(ids)


def test_filters_on_big_five_band_prime_and_preference_comparison(pool):
    chosen = select_population(
        pool, PopulationSpec(filters={"conscientiousness": "high", "prime": True, "price_consciousness": ">=4"})
    )
    assert chosen
    for persona in chosen:
        assert persona.big_five.levels["conscientiousness"] in ("High", "Extremely high")
        assert persona.shopping.prime is True
        assert persona.preferences["price_consciousness"] >= 4
    # and nobody who fits was left out
    fits = [
        p
        for p in pool
        if p.big_five.levels.get("conscientiousness") in ("High", "Extremely high")
        and p.shopping.prime is True
        and (p.preferences.get("price_consciousness") or 0) >= 4
    ]
    assert {p.id for p in chosen} == {p.id for p in fits}


def test_list_filter_means_any_and_exact_level_matches_itself(pool):
    chosen = select_population(
        pool, PopulationSpec(filters={"conscientiousness": "Extremely high", "gender": ["female", "male"]})
    )
    assert chosen and all(p.big_five.levels["conscientiousness"] == "Extremely high" for p in chosen)
    assert all(p.demographics.gender in ("Female", "Male") for p in chosen)


def test_stratified_sample_keeps_the_mix_and_is_seeded(pool):
    spec = PopulationSpec(sample=26, strata=["conscientiousness"], seed=7)
    first, again = select_population(pool, spec), select_population(pool, spec)
    assert [p.id for p in first] == [p.id for p in again]
    assert len(first) == 26
    whole = Counter(trait_bucket(p, "conscientiousness") for p in pool)
    half = Counter(trait_bucket(p, "conscientiousness") for p in first)
    for bucket, count in whole.items():  # half of each stratum, give or take the rounding of one
        assert abs(half[bucket] - count / 2) <= 1
    other = select_population(pool, PopulationSpec(sample=26, strata=["conscientiousness"], seed=8))
    assert [p.id for p in other] != [p.id for p in first]


def test_segment_buckets(pool):
    persona = next(p for p in pool if p.preferences.get("price_consciousness") == 2)
    segments = segment_buckets(persona, ["price_consciousness", "prime", "conscientiousness"])
    assert segments["price_consciousness"] == "low"
    assert segments["prime"] in ("yes", "no", "unknown")
    assert segments["conscientiousness"] in ("low", "medium", "high", "unknown")


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"ids": ["no-such-person"]}, "unknown persona id"),
        ({"filters": {"gender": "robot"}}, "population is empty"),
        ({"sample": 53}, "sample of 53"),
    ],
)
def test_bad_populations_say_why(pool, spec, message):
    with pytest.raises(PopulationError, match=message):
        select_population(pool, PopulationSpec(**spec))


def test_empty_pool_is_refused():
    with pytest.raises(PopulationError, match="no personas are stored"):
        select_population([], PopulationSpec())


@pytest.mark.parametrize(
    "field",
    [
        {"filters": {"height": "tall"}},
        {"strata": ["height"]},
        {"filters": {"price_consciousness": "very"}},
        {"filters": {"conscientiousness": "huge"}},
    ],
)
def test_unknown_traits_and_values_fail_validation(field):
    with pytest.raises(ValidationError):
        PopulationSpec(**field)
