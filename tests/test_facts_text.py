"""The LLM prompt carries the page facts as a compact block inside the page fence, so both brains decide
from what the shopper sees (on a real page the start of the visible text is mostly navigation)."""

from __future__ import annotations

from agent.llm.facts_block import facts_lines
from agent.llm.page_block import PAGE_CLOSE, PAGE_OPEN, page_block
from agent.page.parse import parse_page
from agent.sample_pages import sample_page


def test_page_block_states_the_product_facts_inside_the_page_fence():
    block = page_block(parse_page(sample_page("product_page.html")))
    inside = block[block.index(PAGE_OPEN) : block.index(PAGE_CLOSE)]
    assert "This page's product: Anker USB C Cable" in inside
    assert "$12.99 (list $15.99, 19% off)" in inside
    assert "4.7 stars, 48,211 reviews" in inside
    assert "Other products in view (8):" in inside


def test_facts_follow_the_page_a_changed_price_and_stock_show_in_the_block():
    html = sample_page("product_page.html").replace("$12.99", "$32.49").replace("In Stock", "Currently unavailable")
    lines = facts_lines(parse_page(html).facts)
    assert "$32.49" in lines[0] and "UNAVAILABLE" in lines[0]
    assert "It cannot be bought here now." in lines


def test_search_results_list_their_products_and_a_page_without_products_has_no_block():
    lines = facts_lines(parse_page(sample_page("search_results.html")).facts)
    assert lines[0].startswith("Products in view (")
    assert any("sponsored" in line for line in lines)
    assert facts_lines(parse_page("<html><body><a name='nav_bar.homepage'>Home</a></body></html>").facts) == []
