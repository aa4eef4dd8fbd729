"""The task schema (what is accepted, what is refused and why) and the one judge of whether a twin reached it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.page.parse import parse_page
from agent.tasks import MAX_TASK_CHARS, Task, judge, task_success, url_matches

PAGE = parse_page(
    '<html><head><title>Order placed - TwinShop</title></head><body><div name="nav_bar">'
    '<a name="nav_bar.cart_button">Cart</a><input name="nav_bar.search_input" type="text"></div>'
    '<p>Thank you, your order number is 123456.</p><a name="footer.return_policy">Returns &amp; refunds</a>'
    '<button name="buybox.purchase_form.add_to_cart">Add to Cart</button></body></html>',
    url="http://127.0.0.1:8100/order-placed?order=123456",
)


def test_a_bare_string_is_the_goal_and_whitespace_is_folded():
    task = Task.model_validate("  buy a 3-cup   rice cooker\nunder $100 ")
    assert task.goal == "buy a 3-cup rice cooker under $100" and task.success is None


@pytest.mark.parametrize(
    "goal, reason",
    [
        ("", "the task is empty"),
        ("   \n\t", "the task is empty"),
        ("x" * (MAX_TASK_CHARS + 1), f"at most {MAX_TASK_CHARS} characters"),
        ("x" * 100_000, f"at most {MAX_TASK_CHARS} characters"),
    ],
)
def test_empty_and_oversized_goals_are_refused_with_the_reason(goal, reason):
    with pytest.raises(ValidationError) as caught:
        Task.model_validate({"goal": goal})
    assert reason in str(caught.value)


def test_success_criteria_are_checked():
    with pytest.raises(ValidationError, match="at least one of url, element or text"):
        Task.model_validate({"goal": "find the return policy", "success": {}})
    with pytest.raises(ValidationError, match="'text' is empty"):
        Task.model_validate({"goal": "find the return policy", "success": {"text": "  "}})
    with pytest.raises(ValidationError, match="Extra inputs"):
        Task.model_validate({"goal": "find the return policy", "success": {"regex": ".*"}})


@pytest.mark.parametrize(
    "pattern, url, expected",
    [
        ("/order-placed", "http://127.0.0.1:8100/order-placed?order=1", True),
        ("/order-placed", "http://127.0.0.1:8100/cart", False),
        ("http*://127.0.0.1:*/order-placed*", "http://127.0.0.1:8100/order-placed?order=1", True),
        (
            "*/order-placed",
            "http://127.0.0.1:8100/order-placed?order=1",
            False,
        ),  # with '*' the whole address must match
        ("*/dp/B0TWIN0003*", "http://127.0.0.1:8100/dp/B0TWIN0003?color=Black", True),
        ("*a*a*a*a*a*a*a*a*a*a*a*a*b*", "a" * 5000, False),  # linear, not a regular expression's backtracking
        ("anything", None, False),
    ],
)
def test_url_patterns(pattern, url, expected):
    assert url_matches(pattern, url) is expected


def test_the_judge_checks_every_criterion_on_the_same_page():
    assert judge(Task(goal="buy it"), PAGE).reached is None  # no criteria: not judged
    assert judge(None, PAGE).reached is None
    by_url = Task.model_validate({"goal": "buy it", "success": {"url": "/order-placed"}})
    assert judge(by_url, PAGE).model_dump() == {"reached": True, "checks": {"url": True}}
    assert judge(by_url, PAGE, url="http://127.0.0.1:8100/cart").reached is False
    by_name = Task.model_validate({"goal": "x", "success": {"element": "footer.return_policy"}})
    by_suffix = Task.model_validate({"goal": "x", "success": {"element": "add_to_cart"}})
    by_element_text = Task.model_validate({"goal": "x", "success": {"element": "returns & REFUNDS"}})
    missing = Task.model_validate({"goal": "x", "success": {"element": "check_out"}})
    assert [judge(t, PAGE).reached for t in (by_name, by_suffix, by_element_text, missing)] == [True, True, True, False]
    by_text = Task.model_validate({"goal": "x", "success": {"text": "YOUR ORDER NUMBER"}})
    assert judge(by_text, PAGE).reached is True
    assert judge(by_text, PAGE, page_text="an empty page").reached is False  # the caller's whole text is read
    both = Task.model_validate({"goal": "x", "success": {"url": "/order-placed", "text": "gift wrap"}})
    assert judge(both, PAGE).model_dump() == {"reached": False, "checks": {"url": True, "text": False}}


def test_task_success_per_persona_and_overall():
    summary = task_success("find it", {"a": [True, False, None], "b": [True], "c": [None]})
    assert summary["judged"] == 3 and summary["reached"] == 2 and summary["share"] == pytest.approx(2 / 3, abs=1e-4)
    assert summary["per_persona"]["a"] == {"runs": 3, "judged": 2, "reached": 1, "share": 0.5}
    assert summary["per_persona"]["c"]["share"] is None
