"""The first step of a session: a twin with no history does what real people do first, not buy.

The decision rule's biases lift purchase because the benchmark scores how sessions end; the first step
has its own fitted term (decision_tuning.tune_start_biases). Real first actions in the OPeRA timelines
(Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0): input 42 of 196 sessions, nav bar 41, purchase 14.
"""

from __future__ import annotations

import numpy as np

from agent.behaviour.labels import INPUT, LABEL_INDEX, LABELS, PURCHASE
from agent.behaviour.params import load_params
from agent.brains.embedded import EmbeddedBrain
from agent.calibration.decision_tuning import DecisionRule, TuningSet, tune_start_biases
from agent.page.observation import EMPTY_OBSERVATION
from agent.page.parse import parse_page
from agent.sample_pages import sample_page
from agent.twin_context import TwinContext
from personas.sources import load_personas


def _distribution(**shares: float) -> np.ndarray:
    row = np.full(len(LABELS), 0.01)
    for label, share in shares.items():
        row[LABEL_INDEX[label]] = share
    return row / row.sum()


def test_start_term_names_the_likeliest_first_action_and_later_steps_keep_the_purchase_bias():
    # First steps: typing is the real first action; a purchase-lifting bias would name purchase instead.
    first = np.asarray([_distribution(input=0.25, purchase=0.12, nav_bar=0.2)] * 10)
    gold = np.full(10, LABEL_INDEX[INPUT])
    tuning = TuningSet(first, gold, np.zeros(10, dtype=bool), np.full(10, -1))
    biases = {"terminate": 1.0, PURCHASE: 1.5, INPUT: 0.0}
    start = tune_start_biases([tuning], biases)
    rule = DecisionRule(biases, 0.5, start)
    assert LABELS[rule.decide(first[:1], np.asarray([-1]))[0]] == INPUT
    # The same distribution later in a session still gets the purchase bias.
    assert LABELS[rule.decide(first[:1], np.asarray([LABEL_INDEX["review"]]))[0]] == PURCHASE
    # Without the start term (the old rule) the first step was a purchase.
    assert LABELS[DecisionRule(biases, 0.5).decide(first[:1], np.asarray([-1]))[0]] == PURCHASE


def test_shipped_rule_has_a_fitted_start_term():
    model = load_params().model
    assert model.start_bias is not None
    assert model.start_bias[LABEL_INDEX[PURCHASE]] < model.decision_bias[LABEL_INDEX[PURCHASE]]


def test_no_persona_buys_first_page_free_or_on_the_sample_pages(opera_dir):
    personas = load_personas(opera_dir / "personas.jsonl")
    brain = EmbeddedBrain()
    pages = {
        "none": EMPTY_OBSERVATION,
        "product": parse_page(sample_page("product_page.html")),
        "search": parse_page(sample_page("search_results.html")),
    }
    for kind, observation in pages.items():
        labels = [brain.decide_sync(TwinContext.on_page(p, observation)).details["label"] for p in personas]
        purchases = sum(label == PURCHASE for label in labels)
        assert purchases * 10 <= len(labels), f"{kind}: {purchases} of {len(labels)} personas buy first"


def test_a_first_search_is_for_what_the_person_came_for_and_the_rationale_says_so(opera_dir):
    from personas.memory_types import Memory

    persona = load_personas(opera_dir / "personas.jsonl")[0]
    told = Memory(id="m1", persona_id=persona.id, kind="interview", text="I was shopping for running shoes.")
    decision = EmbeddedBrain().decide_sync(
        TwinContext.on_page(persona, parse_page(sample_page("product_page.html")), memories=[told])
    )
    assert decision.rationale.startswith("I came to look for running shoes")
    if decision.action.type == "input":  # the query and the stated purpose agree
        assert decision.action.text == "running shoes"
