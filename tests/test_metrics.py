"""OPeRA metrics against hand-computed cases and against scikit-learn on the same labels."""

from __future__ import annotations

import random

import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

from agent.actions import ClickAction, InputAction, TerminateAction
from agent.click_types import CLICK_TYPES
from agent.evaluation.metrics import StepRecord, classification, compute_metrics

C = ClickAction
I = InputAction
T = TerminateAction


def rec(gold, gct, pred, pct, step=0, last=False, session="s1"):
    return StepRecord(session, step, last, gold, gct, pred, pct)


def test_hand_computed_session():
    records = [
        rec(I(name="nav_bar.search_input", text="shoes"), None, I(name="nav_bar.search_input", text="shoes"), None, 0),
        rec(C(name="nav_bar.search_button"), "search", C(name="nav_bar.search_button"), "search", 1),
        rec(C(name="search_results.a.product_name"), "product_link", C(name="search_results.b.product_name"), "product_link", 2),
        rec(C(name="buybox.purchase_form.add_to_cart"), "purchase", T(), None, 3, last=True),
    ]
    m = compute_metrics(records)
    assert m["n"] == 4 and m["n_sessions"] == 1
    assert m["exact_match"] == pytest.approx(2 / 4)
    # action types: gold [input, click, click, click], pred [input, click, click, terminate]
    # click: P=2/2, R=2/3, F1=0.8; input: F1=1; terminate: P=0 (1 predicted, 0 right), R=0 (no support), F1=0
    assert m["action_type_macro_f1"] == pytest.approx((0.8 + 1 + 0) / 3)
    assert m["action_type_weighted_f1"] == pytest.approx((0.8 * 3 + 1 * 1) / 4)
    # click types over the 3 gold clicks: gold [search, product_link, purchase], pred [search, product_link, <terminate>]
    # search F1 1, product_link F1 1, purchase F1 0 -> weighted (1 + 1 + 0) / 3
    assert m["click_type_weighted_f1"] == pytest.approx(2 / 3)
    assert m["fine_grained_accuracy"] == pytest.approx(3 / 4)
    # outcome: one last step, gold purchase, predicted terminate
    assert m["outcome_accuracy"] == 0.0 and m["outcome_weighted_f1"] == 0.0
    assert m["errors"]["did_not_click"]["count"] == 1
    assert m["errors"]["clicked_wrong_element"]["count"] == 1


def test_terminate_is_matched_by_type_and_input_needs_the_same_text():
    records = [
        rec(T(), None, T(), None, 0, last=True, session="a"),
        rec(I(name="q", text="red shoes"), None, I(name="q", text="shoes"), None, 0, session="b"),
        rec(I(name="q", text="red shoes"), None, I(name="other", text="red shoes"), None, 1, last=True, session="b"),
    ]
    m = compute_metrics(records)
    assert m["exact_match"] == pytest.approx(1 / 3)
    assert m["errors"]["input_wrong_text"]["count"] == 1 and m["errors"]["input_wrong_field"]["count"] == 1
    # outcomes: a -> terminate/terminate; b -> gold other (an input), predicted continue
    assert m["outcome_accuracy"] == pytest.approx(1 / 2)


def test_empty_records():
    m = compute_metrics([])
    assert m["n"] == 0 and m["exact_match"] is None and m["action_type_macro_f1"] is None
    assert m["outcome_weighted_f1"] is None


@pytest.mark.parametrize("seed", range(8))
def test_classification_matches_sklearn(seed):
    rng = random.Random(seed)
    labels = list(CLICK_TYPES[: rng.randint(2, 13)])
    gold = [rng.choice(labels) for _ in range(rng.randint(5, 300))]
    pred = [rng.choice(labels + ["<input>"]) if rng.random() < 0.6 else g for g in gold]
    ours = classification(gold, pred)
    union = sorted(set(gold) | set(pred))
    assert ours["macro_f1"] == pytest.approx(f1_score(gold, pred, labels=union, average="macro", zero_division=0))
    assert ours["weighted_f1"] == pytest.approx(f1_score(gold, pred, labels=union, average="weighted", zero_division=0))
    assert ours["accuracy"] == pytest.approx(accuracy_score(gold, pred))
    order = ours["labels"]
    assert ours["matrix"] == confusion_matrix(gold, pred, labels=order).tolist()


@pytest.mark.parametrize("seed", range(5))
def test_compute_metrics_matches_sklearn_on_random_sessions(seed):
    rng = random.Random(100 + seed)
    records = []
    for s in range(rng.randint(1, 12)):
        length = rng.randint(1, 10)
        for t in range(length):
            def draw():
                kind = rng.choices(["click", "input", "terminate"], [0.8, 0.15, 0.05])[0]
                if kind == "click":
                    ct = rng.choice(CLICK_TYPES)
                    return C(name=f"{ct}.{rng.randint(0, 2)}"), ct
                if kind == "input":
                    return I(name="nav_bar.search_input", text=rng.choice(["a", "b"])), None
                return T(), None
            gold, gct = draw()
            pred, pct = (gold, gct) if rng.random() < 0.3 else draw()
            records.append(rec(gold, gct, pred, pct, t, t == length - 1, f"s{s}"))
    m = compute_metrics(records)
    g_types = [r.gold.type for r in records]
    p_types = [r.pred.type for r in records]
    union = sorted(set(g_types) | set(p_types))
    assert m["action_type_macro_f1"] == pytest.approx(f1_score(g_types, p_types, labels=union, average="macro", zero_division=0))
    assert m["action_type_weighted_f1"] == pytest.approx(f1_score(g_types, p_types, labels=union, average="weighted", zero_division=0))
    clicks = [r for r in records if r.gold.type == "click"]
    if clicks:
        g = [r.gold_click_type for r in clicks]
        p = [r.pred_click_type if r.pred.type == "click" else f"<{r.pred.type}>" for r in clicks]
        assert m["click_type_weighted_f1"] == pytest.approx(
            f1_score(g, p, labels=sorted(set(g) | set(p)), average="weighted", zero_division=0))
    last = [r for r in records if r.is_last]
    def outcome(a, ct, gold):
        return "terminate" if a.type == "terminate" else "purchase" if a.type == "click" and ct == "purchase" else ("other" if gold else "continue")
    go = [outcome(r.gold, r.gold_click_type, True) for r in last]
    po = [outcome(r.pred, r.pred_click_type, False) for r in last]
    assert m["outcome_accuracy"] == pytest.approx(accuracy_score(go, po))
    assert m["outcome_weighted_f1"] == pytest.approx(
        f1_score(go, po, labels=sorted(set(go) | set(po)), average="weighted", zero_division=0))
    assert m["exact_match"] == pytest.approx(sum(
        r.gold == r.pred for r in records) / len(records))
