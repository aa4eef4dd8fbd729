"""The experiment runner on the real embedded brain and real OPeRA personas: determinism, paired seeds, page
sequences, resume, stopping, the cost estimate against a budget, and specs refused before any work."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent.brains.embedded import EmbeddedBrain
from agent.experiments.cost import check_budget, estimate_cost
from agent.experiments.prepared import instance_seed, prepare, sample_key
from agent.experiments.runner import RunInterrupted, run_experiment
from agent.experiments.spec import ExperimentSpec, SpecError, load_spec, parse_spec
from agent.experiments.unit_loop import run_unit, run_unit_graph
from agent.graph import TwinGraph
from personas.population import PopulationError
from personas.sources import load_personas
from tests.conftest import PAGES, REPO

EXAMPLES = REPO / "examples" / "experiments"
BANNER_PAGE = EXAMPLES / "pages" / "product_deal_banner.html"
HISTORY = [
    {
        "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
        "rationale": "My old cable frayed.",
    },
    {
        "action": {
            "type": "click",
            "name": "search_results.anker_usb_c_cable_6ft_nylon_braided_usb_a_to_type_c_charger_cord.product_name",
        }
    },
]


@pytest.fixture(scope="module")
def pool(opera_dir):
    return load_personas(opera_dir / "personas.jsonl")


@pytest.fixture(scope="module")
def brain():
    return EmbeddedBrain()


def product_spec(**overrides) -> ExperimentSpec:
    data = {
        "name": "reviews vs deal banner",
        "variants": [
            {"name": "A", "page": {"path": str(PAGES / "product_page.html")}},
            {"name": "B", "page": {"path": str(BANNER_PAGE)}},
        ],
        "history": HISTORY,
        "population": {"sample": 12, "strata": ["conscientiousness"], "seed": 3},
        "samples_per_persona": 5,
        "targets": ["deal_banner"],
        "segments": ["prime"],
        "seed": 11,
    }
    data.update(overrides)
    return ExperimentSpec.model_validate(data)


def run(spec, pool, brain, **kwargs):
    return run_experiment(prepare(spec, pool, memory=None), embedded=brain, **kwargs)


def dumped(samples):
    return [s.model_dump() for s in samples]


def test_same_spec_and_seed_give_identical_samples(pool, brain):
    first = run(product_spec(), pool, brain)
    again = run(product_spec(), pool, brain)
    assert len(first.samples) == 12 * 5 * 2
    assert dumped(first.samples) == dumped(again.samples)
    other_seed = run(product_spec(seed=12), pool, brain)
    assert dumped(other_seed.samples) != dumped(first.samples)


def test_same_spec_and_seed_give_the_same_result_document(pool, brain):
    """Statistics and themes too, not just the samples (only the recorded wall time may differ)."""
    from agent.behaviour.text_relevance import static_embedder
    from agent.experiments.results import experiment_results

    embed = static_embedder().embed
    documents = []
    for _ in range(2):
        prepared = prepare(product_spec(), pool, memory=None)
        document = experiment_results(prepared, run_experiment(prepared, embedded=brain), embed=embed)
        document["cost"].pop("wall_s")
        documents.append(document)
    assert documents[0] == documents[1]
    assert documents[0]["analysis"]["comparisons"] and documents[0]["themes"]["variants"]


def test_a_twin_instance_draws_with_the_same_seed_on_every_variant(pool, brain):
    """Paired design: with two identical variants every twin instance does exactly the same thing."""
    same = product_spec(
        variants=[
            {"name": "A", "page": {"path": str(PAGES / "product_page.html")}},
            {"name": "A2", "page": {"path": str(PAGES / "product_page.html")}},
        ],
        targets=[],
    )
    samples = run(same, pool, brain).samples
    by_key = {(s.persona_id, s.instance, s.variant): s for s in samples}
    for s in samples:
        if s.variant == "A":
            twin = by_key[(s.persona_id, s.instance, "A2")]
            assert (twin.action_type, twin.element, twin.rationale) == (s.action_type, s.element, s.rationale)
    assert instance_seed(11, "p", 0) == instance_seed(11, "p", 0) != instance_seed(11, "p", 1)
    # instances of one persona are not copies of each other
    elements = {s.element for s in samples if s.variant == "A" and s.persona_id == samples[0].persona_id}
    assert len(elements) > 1


def test_twins_see_the_difference_between_the_variants(pool, brain):
    samples = run(product_spec(samples_per_persona=40), pool, brain).samples
    a = [s for s in samples if s.variant == "A"]
    b = [s for s in samples if s.variant == "B"]
    assert not any(s.target_clicks["deal_banner"] for s in a)  # A has no banner
    assert any(s.target_clicks["deal_banner"] for s in b)
    assert any(s.click_type == "review" for s in a)
    assert not any(s.click_type == "review" for s in b)  # B has no reviews to click
    # B shows no rating and no reviews: with nothing vouching for the cable, fewer twins buy it and more
    # leave, and they say why (page terms, agent/behaviour/page_terms.py).
    assert 2 * sum(s.purchase for s in b) < sum(s.purchase for s in a)
    assert sum(s.leave for s in b) > sum(s.leave for s in a)
    assert sum("review" in s.rationale for s in b) > len(b) // 2
    assert {s.segments["prime"] for s in samples} <= {"yes", "no", "unknown"}


def test_page_sequences_carry_history_and_stop_at_leave_or_purchase(pool, brain):
    spec = product_spec(
        variants=[
            {
                "name": "A",
                "pages": [{"path": str(PAGES / "search_results.html")}, {"path": str(PAGES / "product_page.html")}],
            },
            {"name": "B", "pages": [{"path": str(PAGES / "search_results.html")}, {"path": str(BANNER_PAGE)}]},
        ],
        history=HISTORY[:1],
        samples_per_persona=4,
    )
    samples = run(spec, pool, brain).samples
    assert {s.steps for s in samples} <= {1, 2}
    for s in samples:
        if s.steps == 1:  # stopped on page 1: it left or bought there
            assert s.leave or s.purchase
        else:
            assert not (s.leave and s.purchase)
    assert any(s.steps == 2 for s in samples)
    # page 1 is the same in both variants and the instance seed is shared: the first actions are identical
    by_key = {(s.persona_id, s.instance, s.variant): s for s in samples}
    for s in samples:
        if s.variant == "A":
            assert by_key[(s.persona_id, s.instance, "B")].element == s.element
    # the second step sees the first in its history: run one unit by hand and compare
    prepared = prepare(spec, pool, memory=None)
    unit = next(u for u in prepared.units() if by_key[(u.persona_id, u.instance, u.variant)].steps == 2)
    assert run_unit(prepared, brain, unit) == by_key[(unit.persona_id, unit.instance, unit.variant)]


def test_bulk_units_decide_exactly_as_the_graph_does(pool, brain):
    """Bulk units skip LangGraph but run its recall and decide step: the same unit, through the graph, gives the
    same sample and the same decision records, step by step."""
    spec = product_spec(
        variants=[
            {
                "name": "A",
                "pages": [{"path": str(PAGES / "search_results.html")}, {"path": str(PAGES / "product_page.html")}],
            },
            {"name": "B", "pages": [{"path": str(PAGES / "search_results.html")}, {"path": str(BANNER_PAGE)}]},
        ],
        history=HISTORY[:1],
        samples_per_persona=2,
    )
    prepared = prepare(spec, pool, memory=None)
    graph = TwinGraph({"embedded": brain}, memory=None)
    units = prepared.units()[:12]
    bulk = [run_unit(prepared, brain, unit) for unit in units]
    through_graph = [asyncio.run(run_unit_graph(prepared, graph, unit))[0] for unit in units]
    assert any(sample.steps == 2 for sample in bulk)
    assert dumped(bulk) == dumped(through_graph)
    assert [s.decisions for s in bulk] == [s.decisions for s in through_graph]


def test_resume_skips_finished_samples_and_gives_the_same_result(pool, brain):
    spec = product_spec()
    full = run(spec, pool, brain).samples
    half = full[: len(full) // 2]
    handed_out = []
    resumed = run(spec, pool, brain, done=half, on_samples=handed_out.extend)
    assert resumed.resumed == len(half)
    assert len(handed_out) == len(full) - len(half)  # only the missing ones ran
    assert not {sample_key(s) for s in handed_out} & {sample_key(s) for s in half}
    assert dumped(resumed.samples) == dumped(full)


def test_a_stop_request_interrupts_after_handing_out_finished_samples(pool, brain):
    stop = threading.Event()
    stop.set()
    handed_out = []
    with pytest.raises(RunInterrupted):
        run(product_spec(samples_per_persona=20), pool, brain, on_samples=handed_out.extend, stop=stop)
    assert 0 < len(handed_out) < 12 * 20 * 2


def test_progress_is_reported_to_the_end(pool, brain):
    seen = []
    run(product_spec(), pool, brain, on_progress=seen.append)
    assert seen[-1].done == seen[-1].total == 120


def test_cost_estimate_counts_calls_and_tokens_and_refuses_over_budget(pool):
    spec = product_spec(brain="llm", model="gpt-4.1-mini", budget_usd=0.01)
    prepared = prepare(spec, pool, memory=None)
    estimate = estimate_cost(prepared, spec.model)
    assert estimate["calls"] == 12 * 5 * 2
    assert estimate["prompt_tokens"] > 500 * estimate["calls"]  # a product page prompt is well over 500 tokens
    assert estimate["price_known"] and estimate["usd"] > 0
    assert "over the budget" in check_budget(estimate, 0.01)
    assert check_budget(estimate, 1000) is None
    unknown = estimate_cost(prepared, "openai/twin-test")
    assert unknown["price_known"] is False


def test_example_specs_load_and_resolve(pool):
    for path in sorted(EXAMPLES.glob("*.yaml")) + sorted(EXAMPLES.glob("*.json")):
        spec = load_spec(path)
        prepared = prepare(spec, pool, memory=None, base_dir=path.parent)
        assert len(prepared.pages) >= 2 and prepared.personas


@pytest.mark.parametrize(
    "change, message",
    [
        ({"variants": [{"name": "A", "page": {"path": str(PAGES / "product_page.html")}}]}, "at least 2"),
        (
            {"variants": [{"name": "A", "page": {"path": str(PAGES / "product_page.html")}}, {"name": "B"}]},
            "has no page",
        ),
        (
            {
                "variants": [
                    {"name": "A", "page": {"path": "x.html", "url": "https://example.com"}},
                    {"name": "B", "page": {"path": "y.html"}},
                ]
            },
            "exactly one of",
        ),
        ({"samples_per_persona": 0}, "greater than or equal to 1"),
        ({"samples_per_persona": 101}, "less than or equal to 100"),
        ({"budget_usd": -1}, "budget_usd"),
        ({"segments": ["shoe_size"]}, "unknown segment trait"),
        ({"surprise": 1}, "Extra inputs are not permitted"),
    ],
)
def test_bad_specs_are_refused_with_the_reason(change, message):
    data = product_spec().model_dump(mode="json", exclude_none=True)
    data.update(change)
    with pytest.raises(SpecError, match=message):
        parse_spec(data)


def test_bad_populations_and_pages_fail_before_any_work(pool, tmp_path):
    with pytest.raises(PopulationError, match="unknown persona id"):
        prepare(product_spec(population={"ids": ["nobody"]}), pool, memory=None)
    with pytest.raises(PopulationError, match="population is empty"):
        prepare(product_spec(population={"filters": {"gender": "robot"}}), pool, memory=None)
    with pytest.raises(SpecError, match="cannot read"):
        prepare(
            product_spec(
                variants=[
                    {"name": "A", "page": {"path": str(tmp_path / "missing.html")}},
                    {"name": "B", "page": {"path": str(BANNER_PAGE)}},
                ]
            ),
            pool,
            memory=None,
        )
    with pytest.raises(SpecError, match="file paths are read only by the CLI"):
        prepare(product_spec(), pool, memory=None, allow_paths=False)
    with pytest.raises(SpecError, match="max_predictions"):
        prepare(product_spec(max_predictions=10), pool, memory=None)
    blank = tmp_path / "blank.html"
    blank.write_text("<html><body><p>nothing to click</p></body></html>")
    with pytest.raises(SpecError, match="no element a twin could act on"):
        prepare(
            product_spec(
                variants=[
                    {"name": "A", "page": {"path": str(blank), "format": "simplified"}},
                    {"name": "B", "page": {"path": str(BANNER_PAGE)}},
                ]
            ),
            pool,
            memory=None,
        )


def test_a_misspelt_target_is_refused_with_the_closest_names_the_pages_have(pool):
    with pytest.raises(SpecError) as refused:
        prepare(product_spec(targets=["deal_banner", "add_to_crat"]), pool, memory=None)
    message = str(refused.value)
    assert "target 'add_to_crat' names no element on the pages of variants A, B" in message
    assert "closest: deal_banner.add_to_cart, buybox.purchase_form.add_to_cart" in message
    assert "available: brand_store, breadcrumbs, buybox, deal_banner" in message
    assert "deal_banner'" not in message  # the valid target is not reported
    prepared = prepare(
        product_spec(targets=["deal_banner", "buybox.purchase_form", "reviews.star_rating"]), pool, memory=None
    )  # an element, or a dotted prefix of one, on any variant's page
    assert prepared.notes == []


def test_targets_only_live_pages_could_have_are_noted_not_refused():
    from agent.experiments.targets import check_targets

    spec = product_spec(
        variants=[
            {"name": "A", "page": {"path": str(PAGES / "product_page.html")}},
            {"name": "B", "live_url": "http://127.0.0.1:8100/"},
        ],
        targets=["place_order"],
    )
    notes = check_targets(spec, {"A": {"buybox.purchase_form.add_to_cart"}})
    assert len(notes) == 1 and "'place_order'" in notes[0] and "known only at run time" in notes[0]


def test_spec_files_with_bad_syntax_name_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(SpecError, match=r"bad.yaml:2:1: not valid YAML: expected ',' or '\]'"):
        load_spec(bad)
    with pytest.raises(SpecError, match="No such file"):
        load_spec(tmp_path / "none.json")


@pytest.fixture
def page_server():
    """A real HTTP server on loopback serving the sample pages (404 for anything else)."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(PAGES)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_url_pages_are_fetched_and_fetch_failures_say_why(pool, brain, page_server):
    spec = product_spec(
        variants=[
            {"name": "A", "page": {"url": f"{page_server}/product_page.html"}},
            {"name": "B", "page": {"path": str(BANNER_PAGE)}},
        ]
    )
    prepared = prepare(spec, pool, memory=None)
    assert prepared.pages["A"][0].observation.page_type == "product"
    assert prepared.pages["A"][0].url == f"{page_server}/product_page.html"
    missing = product_spec(
        variants=[
            {"name": "A", "page": {"url": f"{page_server}/nope.html"}},
            {"name": "B", "page": {"path": str(BANNER_PAGE)}},
        ]
    )
    with pytest.raises(SpecError, match="HTTP 404"):
        prepare(missing, pool, memory=None)
    from tests.support.service_process import free_port

    closed = product_spec(
        variants=[
            {"name": "A", "page": {"url": f"http://127.0.0.1:{free_port()}/x.html"}},
            {"name": "B", "page": {"path": str(BANNER_PAGE)}},
        ]
    )
    with pytest.raises(SpecError, match="could not fetch"):
        prepare(closed, pool, memory=None)
