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
    """A product page's facts with the products its tiles show, when its blocks gave fewer than two priced others.

    A tile's own buy button (named in the tile's group: `similar.skogsta.add_to_shopping_bag` beside the tile link
    `similar.skogsta.skogsta_dining_table_399`) buys the tile's product, not the page's: it moves from the page's
    product to the tile, so a twin that buys the product in view never names a recommended product's button."""
    if facts.focus is None or sum(p.price is not None for p in facts.alternatives()) >= _MIN_TILES:
        return facts
    candidates = list(candidates)
    taken = frozenset(name for p in facts.products for name in (p.name, *p.buy_names) if name)
    tiles = tile_products(candidates, facts.currency, taken)
    if len(tiles) < _MIN_TILES:
        return facts
    own = facts.products[facts.focus]
    tiles, moved = _with_own_buttons(tiles, own.buy_names, {c.name: c.position for c in candidates})
    products = list(facts.products)
    if moved and len(moved) < len(own.buy_names):  # the page's product keeps a button of its own
        products[facts.focus] = replace(own, buy_names=tuple(n for n in own.buy_names if n not in moved))
    else:
        tiles = [replace(t, buy_names=()) for t in tiles]
    return replace(facts, products=tuple(products) + tuple(tiles))


def _with_own_buttons(
    tiles: list[ProductFacts], buttons: tuple[str, ...], position: dict[str, int]
) -> tuple[list[ProductFacts], set[str]]:
    """Each tile with the buy buttons of its group (the names before the last part, three parts or more) that follow
    its link before the group's next tile (two tiles may share a group when their titles begin alike, NORDEN and
    NORDEN); and the buttons so moved."""
    by_group: dict[str, list[int]] = {}
    for i, tile in enumerate(tiles):
        if tile.name and tile.name.count(".") >= 2 and tile.name in position:
            by_group.setdefault(tile.name.rsplit(".", 1)[0], []).append(i)
    moved: set[str] = set()
    out = list(tiles)
    for group, members in by_group.items():
        members.sort(key=lambda i: position[tiles[i].name or ""])
        starts = [position[tiles[i].name or ""] for i in members]
        own: dict[int, list[str]] = {}
        for button in buttons:
            if button.rsplit(".", 1)[0] != group or button not in position:
                continue
            before = [k for k, start in enumerate(starts) if start < position[button]]
            if before:
                own.setdefault(members[before[-1]], []).append(button)
        for i, names in own.items():
            out[i] = replace(out[i], buy_names=tuple(names))
            moved.update(names)
    return out, moved
