"""OPeRA metrics against hand-computed cases and against scikit-learn on the same labels."""

from __future__ import annotations

import json
import random

import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_recall_fscore_support

from agent.actions import ClickAction, InputAction, TerminateAction
from agent.evaluation.metrics import ERROR_KINDS, StepRecord, classification, compute_metrics
from agent.page.click_types import CLICK_TYPES

C = ClickAction
I = InputAction  # noqa: E741 - C, I and T: the action types, as short as the tables of records using them
T = TerminateAction


def rec(gold, gct, pred, pct, step=0, last=False, session="s1"):
    return StepRecord(session, step, last, gold, gct, pred, pct)


def test_hand_computed_session():
    records = [
        rec(I(name="nav_bar.search_input", text="shoes"), None, I(name="nav_bar.search_input", text="shoes"), None, 0),
        rec(C(name="nav_bar.search_button"), "search", C(name="nav_bar.search_button"), "search", 1),
        rec(
            C(name="search_results.a.product_name"),
            "product_link",
            C(name="search_results.b.product_name"),
            "product_link",
            2,
        ),
        rec(C(name="buybox.purchase_form.add_to_cart"), "purchase", T(), None, 3, last=True),
    ]
    m = compute_metrics(records)
    assert m["n"] == 4 and m["n_sessions"] == 1
    assert m["exact_match"] == pytest.approx(2 / 4)  # the input and the search button
    # action types: gold [input, click, click, click], pred [input, click, click, terminate]
    # click: P=2/2, R=2/3, F1=2*1*(2/3)/(1+2/3)=0.8; input: F1=1; terminate: P=0/1, R=0/0 -> F1 0
    assert m["action_type_macro_f1"] == pytest.approx((0.8 + 1 + 0) / 3)
    assert m["action_type_weighted_f1"] == pytest.approx((0.8 * 3 + 1 * 1 + 0 * 0) / 4)
    # click types over the 3 gold clicks: gold [search, product_link, purchase], pred [search, product_link,
    # <terminate>]
    # search F1 1, product_link F1 1, purchase F1 0 (never predicted), <terminate> weighs 0 -> (1 + 1 + 0) / 3
    assert m["click_type_weighted_f1"] == pytest.approx(2 / 3)
    assert m["per_class"]["click_type"]["purchase"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1}
    assert m["per_class"]["click_type"]["<terminate>"]["support"] == 0
    # fine labels: gold [input, search, product_link, purchase], pred [input, search, product_link, terminate]
    assert m["fine_grained_accuracy"] == pytest.approx(3 / 4)
    # outcome: one last step, gold purchase, predicted terminate
    assert m["outcome_accuracy"] == 0.0 and m["outcome_weighted_f1"] == 0.0
    assert m["errors"]["did_not_click"] == {"count": 1, "fraction": 0.25}
    assert m["errors"]["clicked_wrong_element"] == {"count": 1, "fraction": 0.25}
    assert m["confusion"]["action_type"] == {
        "labels": ["click", "input", "terminate"],
        "matrix": [[2, 0, 1], [0, 1, 0], [0, 0, 0]],
    }
    assert m["distributions"]["action_type"] == {
        "gold": {"input": 1, "click": 3},
        "predicted": {"input": 1, "click": 2, "terminate": 1},
    }
    assert m["distributions"]["click_type"] == {
        "gold": {"search": 1, "product_link": 1, "purchase": 1},
        "predicted": {"search": 1, "product_link": 1},
    }


def test_click_type_f1_weighs_by_gold_support_so_predicted_only_labels_weigh_nothing():
    records = [
        rec(C(name="reviews"), "review", C(name="reviews"), "review", 0),
        rec(C(name="reviews.popover.next"), "review", C(name="search_results.x.product_name"), "product_link", 1),
        rec(C(name="nav_bar.search_button"), "search", C(name="nav_bar.search_button"), "search", 2),
        rec(C(name="buybox.purchase_form.buy_now"), "purchase", T(), None, 3, last=True),
    ]
    m = compute_metrics(records)
    # review: TP 1 of 1 predicted, support 2 -> P 1, R 1/2, F1 2/3; search F1 1; purchase F1 0 (support 1);
    # product_link and <terminate> are predicted only: support 0, weight 0.
    # weighted = (2/3 * 2 + 1 * 1 + 0 * 1) / 4 = (4/3 + 1) / 4 = 7/12
    assert m["click_type_weighted_f1"] == pytest.approx(7 / 12)
    assert m["per_class"]["click_type"]["product_link"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    # labels sorted ("<" before letters); rows gold, columns predicted
    assert m["confusion"]["click_type"] == {
        "labels": ["<terminate>", "product_link", "purchase", "review", "search"],
        "matrix": [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 1, 0], [0, 0, 0, 0, 1]],
    }
    assert m["fine_grained_accuracy"] == pytest.approx(2 / 4)


def test_session_outcome_counts_last_steps_only():
    buy, other = C(name="buybox.purchase_form.add_to_cart"), C(name="search_results.x.product_name")
    records = []
    # (gold last, gold click type, predicted last, predicted click type); every session also has a wrong first step
    lasts = [
        (buy, "purchase", C(name="buybox.purchase_form.buy_now"), "purchase"),  # purchase -> purchase
        (T(), None, other, "product_link"),  # terminate -> continue
        (T(), None, T(), None),  # terminate -> terminate
        (buy, "purchase", T(), None),
    ]  # purchase -> terminate
    for i, (gold, gct, pred, pct) in enumerate(lasts):
        records.append(rec(C(name="reviews"), "review", T(), None, 0, session=f"s{i}"))
        records.append(rec(gold, gct, pred, pct, 1, last=True, session=f"s{i}"))
    m = compute_metrics(records)
    assert m["n"] == 8 and m["n_sessions"] == 4
    # accuracy: 2 of 4 last steps
    assert m["outcome_accuracy"] == pytest.approx(0.5)
    # purchase: TP 1, predicted 1, support 2 -> P 1, R 1/2, F1 2/3
    # terminate: TP 1, predicted 2, support 2 -> P 1/2, R 1/2, F1 1/2; continue: support 0
    # weighted = (2/3 * 2 + 1/2 * 2) / 4 = 7/12
    assert m["outcome_weighted_f1"] == pytest.approx(7 / 12)
    assert m["per_class"]["outcome"]["continue"]["support"] == 0
    assert m["errors"]["did_not_click"]["count"] == 5 and m["errors"]["did_not_terminate"]["count"] == 1


def test_gold_other_outcome_and_input_errors():
    records = [
        rec(T(), None, T(), None, 0, last=True, session="a"),
        rec(I(name="q", text="red shoes"), None, I(name="q", text="shoes"), None, 0, session="b"),
        rec(I(name="q", text="red shoes"), None, I(name="other", text="red shoes"), None, 1, last=True, session="b"),
    ]
    m = compute_metrics(records)
    assert m["exact_match"] == pytest.approx(1 / 3)
    assert m["errors"]["input_wrong_text"]["count"] == 1 and m["errors"]["input_wrong_field"]["count"] == 1
    # outcomes: a -> terminate/terminate; b ends on an input: gold "other", predicted "continue"
    assert m["outcome_accuracy"] == pytest.approx(1 / 2)
    # terminate F1 1 (support 1), other F1 0 (support 1) -> weighted 1/2
    assert m["outcome_weighted_f1"] == pytest.approx(1 / 2)
    assert m["click_type_weighted_f1"] is None  # no gold click


def test_missing_click_types_are_inferred_from_the_element_name():
    records = [
        rec(
            C(name="buybox.purchase_form.add_to_cart"), None, C(name="buybox.purchase_form.buy_now"), None, 0, last=True
        )
    ]
    m = compute_metrics(records)
    assert m["click_type_weighted_f1"] == 1.0 and m["outcome_accuracy"] == 1.0
    assert m["distributions"]["click_type"] == {"gold": {"purchase": 1}, "predicted": {"purchase": 1}}


def test_every_wrong_prediction_has_exactly_one_error_kind():
    rng = random.Random(7)
    kinds = [C(name="a"), C(name="b"), I(name="q", text="x"), I(name="q", text="y"), I(name="r", text="x"), T()]
    records = [rec(rng.choice(kinds), "other", rng.choice(kinds), "other", t, session=f"s{t}") for t in range(300)]
    m = compute_metrics(records)
    wrong = round((1 - m["exact_match"]) * m["n"])
    assert sum(m["errors"][k]["count"] for k in ERROR_KINDS) == wrong
    assert all(m["errors"][k]["count"] > 0 for k in ERROR_KINDS)
    assert m["errors"]["did_not_input"]["fraction"] == pytest.approx(m["errors"]["did_not_input"]["count"] / 300)


def test_empty_records():
    m = compute_metrics([])
    assert m["n"] == 0 and m["n_sessions"] == 0
    for key in (
        "exact_match",
        "action_type_macro_f1",
        "action_type_weighted_f1",
        "click_type_weighted_f1",
        "fine_grained_accuracy",
        "outcome_accuracy",
        "outcome_weighted_f1",
    ):
        assert m[key] is None, key
    assert m["errors"]["did_not_click"] == {"count": 0, "fraction": None}
    json.dumps(m)


def test_the_report_is_plain_json():
    records = [rec(C(name="reviews"), "review", C(name="reviews"), "review", 0, last=True)]
    m = compute_metrics(records)
    assert json.loads(json.dumps(m)) == m


@pytest.mark.parametrize("seed", range(8))
def test_classification_matches_sklearn(seed):
    rng = random.Random(seed)
    labels = list(CLICK_TYPES[: rng.randint(2, 13)])
    gold = [rng.choice(labels) for _ in range(rng.randint(5, 300))]
    pred = [rng.choice([*labels, "<input>"]) if rng.random() < 0.6 else g for g in gold]
    ours = classification(gold, pred)
    union = sorted(set(gold) | set(pred))
    assert ours["macro_f1"] == pytest.approx(f1_score(gold, pred, labels=union, average="macro", zero_division=0))
    assert ours["weighted_f1"] == pytest.approx(f1_score(gold, pred, labels=union, average="weighted", zero_division=0))
    assert ours["accuracy"] == pytest.approx(accuracy_score(gold, pred))
    order = ours["labels"]
    assert ours["matrix"] == confusion_matrix(gold, pred, labels=order).tolist()
    precision, recall, f1, support = precision_recall_fscore_support(gold, pred, labels=order, zero_division=0)
    for i, label in enumerate(order):
        got = ours["per_class"][label]
        assert (got["precision"], got["recall"], got["f1"]) == pytest.approx((precision[i], recall[i], f1[i]))
        assert got["support"] == support[i]


@pytest.mark.parametrize("seed", range(6))
def test_compute_metrics_matches_sklearn_on_random_sessions(seed):
    rng = random.Random(100 + seed)

    def draw():
        kind = rng.choices(["click", "input", "terminate"], [0.8, 0.15, 0.05])[0]
        if kind == "click":
            ct = rng.choice(CLICK_TYPES)
            return C(name=f"{ct}.{rng.randint(0, 2)}"), ct
        if kind == "input":
            return I(name="nav_bar.search_input", text=rng.choice(["a", "b"])), None
        return T(), None

    records = []
    for s in range(rng.randint(1, 12)):
        length = rng.randint(1, 10)
        for t in range(length):
            gold, gct = draw()
            pred, pct = (gold, gct) if rng.random() < 0.3 else draw()
            records.append(rec(gold, gct, pred, pct, t, t == length - 1, f"s{s}"))
    m = compute_metrics(records)
    g_types = [r.gold.type for r in records]
    p_types = [r.pred.type for r in records]
    union = sorted(set(g_types) | set(p_types))
    assert m["action_type_macro_f1"] == pytest.approx(
        f1_score(g_types, p_types, labels=union, average="macro", zero_division=0)
    )
    assert m["action_type_weighted_f1"] == pytest.approx(
        f1_score(g_types, p_types, labels=union, average="weighted", zero_division=0)
    )
    clicks = [r for r in records if r.gold.type == "click"]
    if clicks:
        g = [r.gold_click_type for r in clicks]
        p = [r.pred_click_type if r.pred.type == "click" else f"<{r.pred.type}>" for r in clicks]
        assert m["click_type_weighted_f1"] == pytest.approx(
            f1_score(g, p, labels=sorted(set(g) | set(p)), average="weighted", zero_division=0)
        )
    fine_g = [r.gold_click_type if r.gold.type == "click" else r.gold.type for r in records]
    fine_p = [r.pred_click_type if r.pred.type == "click" else r.pred.type for r in records]
    assert m["fine_grained_accuracy"] == pytest.approx(accuracy_score(fine_g, fine_p))
    last = [r for r in records if r.is_last]

    def outcome(a, ct, gold):
        if a.type == "terminate":
            return "terminate"
        return "purchase" if a.type == "click" and ct == "purchase" else ("other" if gold else "continue")

    go = [outcome(r.gold, r.gold_click_type, True) for r in last]
    po = [outcome(r.pred, r.pred_click_type, False) for r in last]
    assert m["outcome_accuracy"] == pytest.approx(accuracy_score(go, po))
    assert m["outcome_weighted_f1"] == pytest.approx(
        f1_score(go, po, labels=sorted(set(go) | set(po)), average="weighted", zero_division=0)
    )
    assert m["exact_match"] == pytest.approx(sum(r.gold == r.pred for r in records) / len(records))
