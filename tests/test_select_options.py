"""A drop-down is chosen by typing one of its options: parsed with its options, grounded against them, and named
in the LLM's page block as a select."""

from __future__ import annotations

from agent.actions import ClickAction, InputAction
from agent.grounding import grounding_error, normalise
from agent.llm.page_block import candidate_line
from agent.page.parse import parse_page

PAGE = parse_page(
    '<select name="results.sort_by"><option value="rel">Featured</option>'
    "<option>Price: Low to High</option><option>Price: High to Low</option></select>"
    '<select name="nav_bar.search_drop_down_list" title="Search in"></select>'
    '<a name="nav_bar.cart_button">Cart</a>'
)


def test_options_are_read_in_order():
    assert PAGE.by_name["results.sort_by"].options == ("Featured", "Price: Low to High", "Price: High to Low")
    assert PAGE.by_name["results.sort_by"].takes_text and PAGE.by_name["results.sort_by"].kind == "clickable"
    assert not PAGE.by_name["nav_bar.search_drop_down_list"].takes_text  # no options: only clicked
    assert PAGE.by_name["nav_bar.cart_button"].options == ()


def test_an_option_is_grounded_and_anything_else_is_refused_with_the_options():
    chosen = normalise(InputAction(name="results.sort_by", text="price: low  to high"), PAGE)
    assert chosen == InputAction(name="results.sort_by", text="Price: Low to High")
    assert grounding_error(chosen, PAGE) is None
    wrong = grounding_error(InputAction(name="results.sort_by", text="cheapest"), PAGE)
    assert "drop-down" in wrong and "Price: High to Low" in wrong
    assert "not a text field" in grounding_error(InputAction(name="nav_bar.cart_button", text="x"), PAGE)
    assert grounding_error(ClickAction(name="results.sort_by"), PAGE) is None


def test_the_llm_sees_a_select_with_its_options():
    line = candidate_line(PAGE.by_name["results.sort_by"])
    assert line.startswith("results.sort_by | select | ") and "options: Featured; Price: Low to High" in line
    assert candidate_line(PAGE.by_name["nav_bar.cart_button"]).startswith("nav_bar.cart_button | click | ")
