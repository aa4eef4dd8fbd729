"""Rationale themes with the real sentence embedder: different reasons cluster apart, one reason stays one
theme, groups follow outcomes, results are deterministic."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agent.experiments.samples import Sample
from agent.experiments.themes import outcome_group, rationale_themes

PRICE = [
    "This is too expensive for what it is, I'll look for a cheaper one.",
    "The price is higher than I wanted to pay.",
    "I found it cheaper elsewhere, not worth the cost.",
    "At $89 this is way over my budget.",
    "Too pricey; I want a discount before I buy.",
    "The cost is too high compared with similar items.",
]
DELIVERY = [
    "Delivery takes two weeks, I need it by Friday.",
    "Shipping is too slow for me.",
    "It won't arrive in time, the delivery date is next month.",
    "I want free next-day shipping and this doesn't have it.",
    "The shipping estimate is too long.",
    "It would only be delivered after my trip.",
]


@pytest.fixture(scope="module")
def embed():
    from personas.embedder import get_embedder

    return get_embedder().embed


def _left(variant: str, texts: list[str], prefix: str = "p") -> list[Sample]:
    return [
        Sample(
            variant=variant,
            persona_id=f"{prefix}{i}",
            instance=0,
            action_type="terminate",
            click_type=None,
            element=None,
            purchase=False,
            leave=True,
            rationale=t,
        )
        for i, t in enumerate(texts)
    ]


def _bought(variant: str, texts: list[str]) -> list[Sample]:
    return [
        Sample(
            variant=variant,
            persona_id=f"b{i}",
            instance=0,
            action_type="click",
            click_type="purchase",
            element="add_to_cart",
            purchase=True,
            leave=True,
            rationale=t,
        )
        for i, t in enumerate(texts)
    ]


def test_price_and_delivery_rationales_cluster_apart(embed):
    result = rationale_themes(_left("A", PRICE + DELIVERY), embed)
    left = result["variants"]["A"]["left"]
    assert left["k"] == 2 and left["n_with_rationale"] == 12 and left["silhouette"] > 0.15
    members = [set(t["representatives"]) for t in left["themes"]]
    assert any(m <= set(PRICE) for m in members) and any(m <= set(DELIVERY) for m in members)
    assert [t["size"] for t in left["themes"]] == [6, 6] and sum(t["share"] for t in left["themes"]) == pytest.approx(1)
    for theme in left["themes"]:
        topic = PRICE if set(theme["representatives"]) <= set(PRICE) else DELIVERY
        assert theme["label"] in topic and len(theme["representatives"]) == 3
    delivery_theme = next(t for t in left["themes"] if set(t["representatives"]) <= set(DELIVERY))
    assert {"shipping", "delivery"} & set(delivery_theme["keywords"])
    # each quote names who gave it: persona p<i> said rationale i
    said_by = {text: f"p{i}" for i, text in enumerate(PRICE + DELIVERY)}
    for theme in left["themes"]:
        assert [q["text"] for q in theme["quotes"]] == theme["representatives"]
        assert all(q["persona_ids"] == [said_by[q["text"]]] and q["times"] == 1 for q in theme["quotes"])


def test_one_reason_in_many_words_stays_one_theme(embed):
    same = [
        "It is too expensive.",
        "It's too expensive for me.",
        "This is too expensive.",
        "Way too expensive.",
        "That is too expensive.",
        "Too expensive, sorry.",
        "It costs too much.",
        "It is just too expensive for me.",
    ]
    left = rationale_themes(_left("A", same), embed)["variants"]["A"]["left"]
    assert left["k"] == 1 and left["themes"][0]["size"] == 8


def test_groups_follow_outcomes_repeats_weigh_and_blank_rationales_are_ignored(embed):
    samples = _left("A", PRICE) + _bought("A", ["Great value, adding it to cart."] * 4)
    samples += _left("B", [*DELIVERY, "", "   "], prefix="q")
    result = rationale_themes(samples, embed, per_theme=2)
    assert outcome_group(samples[-1]) == "left" and outcome_group(_bought("A", ["x"])[0]) == "bought"  # bought wins
    bought = result["variants"]["A"]["bought"]
    assert bought["n"] == 4 and bought["themes"][0]["size"] == 4
    assert bought["themes"][0]["representatives"] == ["Great value, adding it to cart."]
    assert result["variants"]["A"]["other"] == {"n": 0, "n_with_rationale": 0, "k": 0, "silhouette": None, "themes": []}
    b_left = result["variants"]["B"]["left"]
    assert b_left["n"] == 8 and b_left["n_with_rationale"] == 6
    assert all(len(t["representatives"]) <= 2 for t in b_left["themes"])


def test_themes_are_deterministic_and_the_embedder_is_called_once(embed):
    calls = []

    def counting(texts):
        calls.append(len(texts))
        return embed(texts)

    samples = _left("A", PRICE + DELIVERY) + _left("B", DELIVERY + PRICE)
    first = rationale_themes(samples, counting, seed=3)
    assert calls == [12]  # distinct texts across all groups, embedded once
    assert rationale_themes(samples, embed, seed=3) == first
    json.dumps(first, allow_nan=False)  # stored as JSON by the runner


def test_bad_settings_and_a_broken_embedder_are_reported(embed):
    with pytest.raises(ValueError, match="max_themes"):
        rationale_themes(_left("A", PRICE), embed, max_themes=0)
    with pytest.raises(ValueError, match="returned 1 vectors for 6 texts"):
        rationale_themes(_left("A", PRICE), lambda texts: np.ones((1, 4)))
