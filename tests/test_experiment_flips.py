"""results.json says which personas changed behaviour between the variants (the flips), how far twins went (paths),
and who they are (persona cards for those it names, capped for large populations), from a real run of the embedded
brain on real OPeRA personas."""

from __future__ import annotations

import pytest

from agent.brains.embedded import EmbeddedBrain
from agent.experiments.flips import persona_flips
from agent.experiments.prepared import prepare
from agent.experiments.results import experiment_results, persona_cards
from agent.experiments.runner import run_experiment
from agent.experiments.spec import ExperimentSpec
from personas.sources import load_personas
from tests.conftest import PAGES, REPO

BANNER_PAGE = REPO / "examples" / "experiments" / "pages" / "product_deal_banner.html"


@pytest.fixture(scope="module")
def pool(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")


@pytest.fixture(scope="module")
def run(pool):
    spec = ExperimentSpec.model_validate(
        {
            "name": "flips",
            "seed": 11,
            "samples_per_persona": 4,
            "population": {"sample": 10, "seed": 3},
            "variants": [
                {"name": "A", "page": {"path": str(PAGES / "product_page.html")}},
                {"name": "B", "page": {"path": str(BANNER_PAGE)}},
            ],
        }
    )
    prepared = prepare(spec, pool, memory=None)
    outcome = run_experiment(prepared, embedded=EmbeddedBrain())
    return prepared, outcome, experiment_results(prepared, outcome, embed=None)


def test_flips_add_up_to_the_rate_differences(run):
    _, outcome, results = run
    flips = results["flips"]["comparisons"][0]
    assert (flips["control"], flips["variant"], flips["pairs"], flips["unpaired"]) == ("A", "B", 40, 0)
    for name in ("purchase", "leave"):
        compared = results["analysis"]["comparisons"][0]["outcomes"][name]
        table = compared["table"]  # McNemar's discordant pairs are the flips
        assert flips["totals"][name] == {"gained": table["variant_only"], "lost": table["control_only"]}
        assert (flips["totals"][name]["gained"] - flips["totals"][name]["lost"]) / 40 == pytest.approx(
            compared["difference"]
        )
    changed = {
        s.persona_id
        for s in outcome.samples
        if s.variant == "A"
        for t in outcome.samples
        if t.variant == "B"
        and (t.persona_id, t.instance) == (s.persona_id, s.instance)
        and (t.purchase, t.leave) != (s.purchase, s.leave)
    }
    assert changed and {row["persona_id"] for row in flips["listed"]} == changed
    assert flips["personas_changed"] == len(changed)
    counts = [sum(row[o]["gained"] + row[o]["lost"] for o in ("purchase", "leave")) for row in flips["listed"]]
    assert counts == sorted(counts, reverse=True)


def test_paths_count_every_run_once(run):
    _, outcome, results = run
    for variant, rows in results["paths"].items():
        runs = [s for s in outcome.samples if s.variant == variant]
        assert sum(row["twins"] for row in rows) == len(runs)
        assert sum(row["twins"] for row in rows if row["ended"] == "bought") == sum(s.purchase for s in runs)


def test_cards_cover_the_named_personas_and_the_document_repeats(run):
    prepared, outcome, results = run
    named = {row["persona_id"] for row in results["flips"]["comparisons"][0]["listed"]}
    assert named <= set(results["personas"]) <= set(prepared.personas)
    first = min(named)
    card = results["personas"][first]
    assert card["id"] == first and card["demographics"] and card["big_five"]
    again = experiment_results(prepared, outcome, embed=None)
    assert {k: again[k] for k in ("flips", "paths", "personas")} == {
        k: results[k] for k in ("flips", "paths", "personas")
    }


def test_cards_are_capped_for_large_populations(pool):
    personas = {p.id: p for p in pool}
    featured = [pool[40].id, pool[3].id]
    cards = persona_cards(personas, featured, first=5, cap=6)
    assert list(cards)[:2] == featured and len(cards) == 6
    assert list(cards)[2:] == [pid for pid in sorted(personas) if pid not in featured][:4]


def test_unpaired_runs_are_counted_apart(run):
    _, outcome, _ = run
    dropped = [s for s in outcome.samples if not (s.variant == "B" and s.instance == 0)]
    flips = persona_flips(dropped, ["A", "B"])["comparisons"][0]
    assert flips["unpaired"] == 10 and flips["pairs"] == 30
