"""The other products a product page shows as tiles: links whose own text is a product's title and price
(agent/page/click_types.links_a_product), as many shops render what they recommend beside the product.

They are what a shopper holds the product's price against on its own page (the page terms' `price_vs_page`), as
the recommendations of an Amazon product page already are; without them a single product's price meets only the
person's monthly budget. Read only on product pages whose blocks gave fewer than two other priced products, after
the page type is known, so neither the page's own product nor its type depends on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from agent.page.candidate import Candidate
from agent.page.facts_model import PageFacts, ProductFacts
from agent.page.listing_products import shown_price
from agent.page.money import find_money
from agent.page.product_reading import common_facts

_MIN_TILES = 2  # a median needs two (agent/behaviour/page_terms.page_references)


def tile_products(candidates: Iterable[Candidate], hint: str | None, taken: frozenset[str]) -> list[ProductFacts]:
    """One product per priced product link not already read (`taken`): its title is the text before the price."""
    products: list[ProductFacts] = []
    for candidate in candidates:
        if candidate.click_type != "product_link" or candidate.name in taken:
            continue
        amounts = find_money(candidate.text, hint)
        price = shown_price(candidate.text, hint)
        if not amounts or price is None:
            continue
        title = candidate.text[: amounts[0].start].strip(" -–—|·")
        products.append(
            common_facts(
                text=candidate.text,
                labels="",
                title=title[:200],
                name=candidate.name,
                brand=None,
                price=price,
                list_price=None,
                review_count=None,
                option_count=0,
                buy_names=(),
                delivery_text=candidate.text,
                stock_text=candidate.text,
            )
        )
    return products


def with_tiles(facts: PageFacts, candidates: Iterable[Candidate]) -> PageFacts:
    """A product page's facts with the products its tiles show, when its blocks gave fewer than two priced others."""
    if facts.focus is None or sum(p.price is not None for p in facts.alternatives()) >= _MIN_TILES:
        return facts
    taken = frozenset(name for p in facts.products for name in (p.name, *p.buy_names) if name)
    tiles = tile_products(candidates, facts.currency, taken)
    if len(tiles) < _MIN_TILES:
        return facts
    return replace(facts, products=facts.products + tuple(tiles))
