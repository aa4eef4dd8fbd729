"""The candidate ranker (MindAct's first stage, with the shipped MiniLM) on the ~100 KB sample results page."""

from __future__ import annotations

import pytest

from agent.candidate_ranking import ENCODERS, rank_candidates, recall_at, top_candidates
from agent.llm.page_block import page_block, trim_candidates
from agent.page.parse import parse_page
from agent.sample_pages import sample_page

SAMSUNG = "search_results.samsung_original_25w_usb_c_to_usb_c_cable_3_3ft_white"
SYNCWIRE = "search_results.syncwire_usb_c_cable_10ft_extra_long_braided_charger_cord"


@pytest.fixture(scope="module")
def page():
    return parse_page(sample_page("search_results.html"))


@pytest.mark.parametrize("encoder", ENCODERS)
def test_the_element_a_task_names_ranks_near_the_top(page, encoder):
    for task, product in (
        ("buy the Samsung 25W USB-C cable in white", SAMSUNG),
        ("get the Syncwire extra long 10ft charger cord", SYNCWIRE),
    ):
        ranking = rank_candidates(page, task, encoder)
        assert sorted(ranking) == list(range(len(page.candidates)))  # a permutation: nothing lost
        targets = {i for i, c in enumerate(page.candidates) if c.name.startswith(product)}
        assert recall_at(ranking, targets, 10), [page.candidates[i].name for i in ranking[:10]]


def test_top_candidates_come_back_in_document_order(page):
    kept = top_candidates(page, "buy the Samsung 25W USB-C cable in white", 20, "static")
    assert len(kept) == 20 and [c.position for c in kept] == sorted(c.position for c in kept)


def test_the_llm_page_block_ranks_only_with_a_task_and_only_when_over_budget(page):
    plain = page_block(page)
    hidden = len(page.candidates) - len(trim_candidates(page.candidates))
    assert hidden > 0 and f"({hidden} more elements not shown)" in plain  # the section-by-section trimming
    ranked = page_block(page, ranking_query="buy the Samsung 25W USB-C cable in white")
    assert "the least relevant to the task)" in ranked and f"{SAMSUNG}.product_name | click" in ranked
    roomy = page_block(page, candidate_token_budget=10**6, ranking_query="buy the Samsung cable")
    assert "not shown" not in roomy and roomy == page_block(page, candidate_token_budget=10**6)
