"""Pages with no OPeRA names: Mind2Web-style cleaned_html whose elements carry backend_node_id (Zheng et al. 2024,
arXiv 2401.01614; Deng et al. 2023). The page below is written for this test in that documented shape."""

from __future__ import annotations

import json

import pytest

from agent.actions import InputAction
from agent.grounding import grounding_error
from agent.page.node_pages import node_candidates, parse_bbox, parse_node_page
from agent.page.parse import parse_page
from agent.page.read_page import observe_page

PAGE = (
    '<html backend_node_id="1"><head><title>Book a flight</title></head><body backend_node_id="2">'
    '<div backend_node_id="3"><label backend_node_id="4">From</label>'
    '<input backend_node_id="5" type="text" aria-label="From" name="origin">'
    '<input backend_node_id="6" type="text" placeholder="To"><input backend_node_id="60" type="hidden" value="x">'
    '<select backend_node_id="7" aria-label="Cabin"><option backend_node_id="8">Economy</option>'
    '<option backend_node_id="9">Business</option></select>'
    '<button backend_node_id="10"><span backend_node_id="11">Find flights</span></button>'
    '<a backend_node_id="12" href="/deals">Deals</a></div></body></html>'
)


def test_without_a_candidate_list_every_interactive_element_is_one():
    page = parse_page(PAGE, url="https://www.united.com/en/us")
    assert [c.node_id for c in page.candidates] == ["4", "5", "6", "7", "8", "9", "10", "12"]  # not the hidden input
    by_id = {c.node_id: c for c in page.candidates}
    assert by_id["5"].name == "from_5" and by_id["5"].kind == "input" and by_id["5"].role == "textbox"
    assert by_id["6"].text == "To" and by_id["6"].kind == "input"
    assert (
        by_id["7"].name == "cabin_7"
        and by_id["7"].options == ("Economy", "Business")
        and by_id["7"].role == "combobox"
        and by_id["7"].takes_text
    )
    assert by_id["10"].text == "Find flights" and by_id["10"].role == "button" and by_id["12"].role == "link"
    assert page.title == "Book a flight" and "Find flights" in page.text
    assert len(page.by_name) == len(page.candidates)


def test_a_rows_candidates_in_document_order_with_boxes_dict_or_json():
    raw = [
        json.dumps(
            {
                "tag": "a",
                "backend_node_id": "12",
                "attributes": json.dumps({"backend_node_id": "12", "bounding_box_rect": "110,607.390625,224,30"}),
            }
        ),
        {"tag": "button", "backend_node_id": "10", "attributes": {"bounding_box_rect": "not,a,box"}},
        {"tag": "input", "backend_node_id": "99", "attributes": '{"aria_label": "Promo code", "type": "text"}'},
    ]
    page = parse_node_page(PAGE, candidates=node_candidates(raw))
    assert [c.node_id for c in page.candidates] == ["10", "12", "99"]  # the page's order; the missing one last
    assert page.candidates[1].bbox == (110.0, 607.390625, 224.0, 30.0) and page.candidates[0].bbox is None
    assert page.candidates[2].text == "Promo code" and page.candidates[2].kind == "input"  # from its attributes


@pytest.mark.parametrize(
    "raw, message",
    [
        (["{not json"], "candidate 0 is not JSON"),
        ([{"tag": "a", "attributes": "{}"}], "candidate 0 has no backend_node_id"),
        ([{"backend_node_id": "1", "attributes": "[1, 2]"}], "attributes are a list"),
        ([3], "candidate 0 is a int"),
    ],
)
def test_malformed_candidates_are_refused_naming_the_problem(raw, message):
    with pytest.raises(ValueError, match=message):
        node_candidates(raw)


def test_bounding_boxes():
    assert parse_bbox("1,2,3,4") == (1.0, 2.0, 3.0, 4.0)
    assert parse_bbox("1,2,3") is None and parse_bbox(None) is None and parse_bbox("1,2,nan,4") is None


def test_read_as_it_is_however_it_is_sent_and_grounded_by_name():
    for simplified in (None, True, False):
        page = observe_page(PAGE, simplified=simplified)
        assert [c.node_id for c in page.candidates][:3] == ["4", "5", "6"]
    page = observe_page(PAGE)
    assert grounding_error(InputAction(name="cabin_7", text="Business"), page) is None
    assert grounding_error(InputAction(name="from_5", text="Mumbai"), page) is None
