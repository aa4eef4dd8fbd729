"""The product in view is held against its alternatives on the page, not against the accessories shown beside it
(agent/behaviour/alternatives.py), on any shop and in any language."""

from __future__ import annotations

from agent.behaviour.alternatives import alternatives, kind_words
from agent.behaviour.page_terms import page_effect
from agent.page.facts_model import PageFacts, ProductFacts
from personas.sensitivities import NEUTRAL

TABLE = ProductFacts(title="MÖCKELBY Table - oak 235x100 cm", price=450.0, currency="GBP", buy_names=("main.add",))
TABLES = [
    ProductFacts(title="SKOGSTA Dining table 235x100 cm", name="t1", price=399.0, currency="GBP"),
    ProductFacts(title="NORDEN Extendable table 155/210x90 cm", name="t2", price=229.0, currency="GBP"),
]
ACCESSORIES = [
    ProductFacts(title=f"{line} {thing}", name=f"a{i}", price=price, currency="GBP")
    for i, (line, thing, price) in enumerate(
        [
            ("IKEA 365+", "Carafe with stopper, 1 l", 2.5),
            ("ISTAD", "Resealable bag", 3.0),
            ("RYET", "LED bulb E14 470 lumen", 2.5),
            ("DRÖNA", "Box, 33x38x33 cm", 3.0),
            ("VADHOLMA", "Rack for kitchen island", 50.0),
        ]
    )
]


def test_a_title_says_its_kind_without_its_brand_or_what_it_goes_with():
    assert kind_words("MÖCKELBY Table - oak 235x100 cm") == {"table", "oak"}
    assert kind_words("VADHOLMA Rack for kitchen island - black") == {"rack"}  # a colour says no kind
    assert kind_words("Eisch Whiskyglas (2-tlg), weiß") == {"whiskygla"}  # nor does a pack size
    assert kind_words("Levi's Belts with buckles") == {"belt", "buckle"}  # plural s cut; "with" says no kind
    assert kind_words("Eisch Whiskyglas »Hamilton«") & kind_words("van Well Whiskyglas »Selecta« (7-tlg)")


def test_the_table_is_held_against_the_tables_not_the_carafes_and_boxes():
    assert alternatives(TABLE, TABLES + ACCESSORIES) == TABLES
    facts = PageFacts(products=(TABLE, *TABLES, *ACCESSORIES), focus=0, can_buy=True, currency="GBP")
    against_page = next(d for d in page_effect(facts, NEUTRAL).drivers if d.kind == "price_vs_page")
    assert against_page.reference == 314.0  # the median of 399 and 229, not of everything (3.0)
    assert -1.5 < against_page.shift < 0


def test_a_product_of_a_kind_nothing_on_the_page_shares_is_held_against_none_of_it():
    rack = ProductFacts(title="VADHOLMA Rack for kitchen island - black", price=50.0, currency="GBP")
    assert alternatives(rack, ACCESSORIES[:4]) == []  # carafes, bags, bulbs, boxes: no price to hold a rack against
    facts = PageFacts(products=(rack, *ACCESSORIES[:4]), focus=0, can_buy=True, currency="GBP")
    assert "price_vs_page" not in [d.kind for d in page_effect(facts, NEUTRAL).drivers]
    freya = ProductFacts(title="Kids Freya Swan Tea Set", price=126.0, currency="SAR")
    arabic = [ProductFacts(title="ساس اند بيل طقم شاي", name=f"o{i}", price=p) for i, p in enumerate((126.0, 33.0))]
    assert alternatives(freya, arabic) == []  # titles the twin cannot match are no reference either


def test_a_title_that_says_no_kind_or_one_alternative_is_held_against_everything_on_it():
    untitled = ProductFacts(title="IKEA", price=10.0, currency="GBP")
    assert alternatives(untitled, ACCESSORIES) == ACCESSORIES
    freya = ProductFacts(title="Kids Freya Swan Tea Set", price=126.0, currency="SAR")
    others = [ProductFacts(title="ساس اند بيل طقم شاي", name=f"o{i}", price=p) for i, p in enumerate((126.0, 33.0))]
    one_alike = [ProductFacts(title="Sass Belle Swan Lamp", name="l", price=40.0), *others]
    assert alternatives(freya, one_alike) == one_alike  # one alternative is no median: everything, as before
