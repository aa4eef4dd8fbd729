"""Could the twins see the difference between two live variants? Compared from what each twin pair was shown, page
by page at the same step and address: a price they read is visible, a change the brain's reading leaves out is
not, and pairs that were never shown the same address say nothing. (Live on the real shop:
tests/test_real_shop_experiment.py.)"""

from __future__ import annotations

from agent.experiments.visibility import address_of, live_visibility, sight_of
from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html

PAGE = (
    "<html><head><title>Trail Shoes | Outfitters</title>{style}</head><body><main><h1>Trail Shoes</h1>"
    "<p class='price'>{price}</p><p>In stock</p><input type='hidden' name='token' value='{token}'>"
    "<form action='/basket/add/1/'><button>Add to basket</button></form></main></body></html>"
)


def sight(price: str = "$79.99", style: str = "", token: str = "a", url: str = "http://127.0.0.1:41001/p/1/"):
    raw = PAGE.format(price=price, style=style, token=token)
    return sight_of(parse_page(simplify_html(raw, url).html, url=url), "embedded")


def test_the_address_leaves_out_the_host_and_port_of_each_instance():
    assert address_of("http://127.0.0.1:41001/p/1/?q=a") == address_of("http://127.0.0.1:41002/p/1/?q=a") == "/p/1/?q=a"


def test_a_price_the_twins_read_is_visible_and_says_where_and_what():
    home = sight(url="http://127.0.0.1:41001/")
    sights = {
        ("A", "ann", 0): [home, sight()],
        ("B", "ann", 0): [home, sight("$59.99", url="http://127.0.0.1:41002/p/1/")],
        ("A", "bob", 0): [home],
        ("B", "bob", 0): [home],
    }
    seen = live_visibility(sights, ["A", "B"], "embedded")
    assert seen["distinguishable"] is True and seen["live"]
    b = seen["variants"]["B"]
    assert (b["pairs_compared"], b["pages_compared"], b["pairs_seeing_a_difference"]) == (2, 3, 1)
    assert b["first_difference_at"] == {"/p/1/": 1}
    example = b["examples"][0]
    assert example["step"] == 2 and example["persona_id"] == "ann"
    assert any("$79.99" in line for line in example["control_only"])
    assert any("$59.99" in line for line in example["variant_only"])


def test_a_colour_or_a_hidden_field_is_not_visible_and_the_note_says_so():
    red = "<style>button { background: #b0302a }</style>"
    sights = {("A", "ann", 0): [sight(), sight()], ("B", "ann", 0): [sight(style=red, token="b"), sight(style=red)]}
    seen = live_visibility(sights, ["A", "B"], "embedded")
    assert seen["distinguishable"] is False and seen["indistinguishable_variants"] == ["B"]
    assert seen["variants"]["B"]["pages_compared"] == 2 and "could not see the difference" in seen["note"]


def test_pairs_never_shown_the_same_address_leave_it_unknown():
    sights = {
        ("A", "ann", 0): [sight(url="http://h:1/a/")],
        ("B", "ann", 0): [sight(url="http://h:2/b/")],
        ("A", "bob", 0): [sight()],
    }  # bob's B run was resumed from an earlier run: nothing to compare
    seen = live_visibility(sights, ["A", "B"], "embedded")
    assert seen["distinguishable"] is None and seen["variants"]["B"]["visible"] is None
    assert seen["variants"]["B"]["pairs_compared"] == 1 and "not known" in seen["note"]


def test_a_brain_that_reads_no_page_sees_no_difference():
    raw = {"price": "$79.99", "style": "", "token": "a"}
    url = "http://h:1/p/"
    a = sight_of(parse_page(simplify_html(PAGE.format(**raw), url).html, url=url), "majority")
    b = sight_of(parse_page(simplify_html(PAGE.format(**{**raw, "price": "$1.00"}), url).html, url=url), "majority")
    seen = live_visibility({("A", "x", 0): [a], ("B", "x", 0): [b]}, ["A", "B"], "majority")
    assert seen["distinguishable"] is False
