"""Where each product sits in a parsed page: the block of named elements that shows one product.

A product is found by the name of the element that opens it (OPeRA's `search_results.<slug>.product_name`,
Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0; the generic simplifier's `main.<card>.title`). Its block is
the named container of those parts when there is one, else the smallest element holding all its parts
without a neighbour's. Linear in the named elements, plus a walk up the tree per product.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from selectolax.lexbor import LexborNode

# The last part of a name that opens a product: OPeRA's `search_results.<slug>.product_name`,
# `4_stars_and_above.<slug>.product_title`, `active_item_list.<slug>.product_detail`, ...
LINK_PARTS = frozenset(
    {"product_name", "product_title", "product_image", "product_detail", "product_link", "title_link", "item_link"}
)
# A card's own title or image link from the generic simplifier (`main.blue_mug.title`): a product when priced.
CARD_PARTS = frozenset({"title", "image"})


@dataclass(slots=True)
class ProductBlock:
    """One product's block: the named container of a search result, or the product link itself."""

    node: LexborNode
    head: str  # the name prefix its links share, e.g. "search_results.<slug>"
    links: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)  # every name under its links' prefixes, inside the block or not
    card: bool = False  # found by a generic card's title: a product only if it shows a price


def product_blocks(named: list[LexborNode], names: list[str]) -> tuple[list[ProductBlock], list[LexborNode]]:
    """One group per product; and the named sections that hold bare product links (a "related items" list).

    `names` are the `name`s of `named`, in the same order. Links sharing a prefix are one product; a link
    inside another product's block (a "4 stars and above" title inside a search result) belongs to that block.
    """
    name_of = {node.mem_id: name for node, name in zip(named, names, strict=True)}
    groups: list[ProductBlock] = []
    sections: dict[int, LexborNode] = {}
    by_head: dict[str, ProductBlock] = {}
    by_node: dict[int, ProductBlock] = {}
    under: dict[str, list[str]] = {}
    node_of: dict[str, LexborNode] = {}
    for node, name in zip(named, names, strict=True):
        head, _, last = name.rpartition(".")
        if head:
            under.setdefault(head, []).append(name)
            node_of.setdefault(name, node)
        if not head or (last not in LINK_PARTS and last not in CARD_PARTS):
            continue
        group = by_head.get(head)
        if group is None:
            owner = _named_ancestor(node, name_of)
            group = by_node.get(owner.mem_id) if owner is not None else None
            if group is None:
                owner_name = name_of.get(owner.mem_id, "") if owner is not None else ""
                if owner is not None and _same_product(owner_name, head):
                    block = owner
                else:
                    block = node
                    if owner is not None:
                        sections[owner.mem_id] = owner
                group = ProductBlock(block, head, card=last in CARD_PARTS)
                groups.append(group)
                by_node[block.mem_id] = group
            by_head[head] = group
        group.links.append(name)
    with_forms = _card_form_parts({group.head for group in groups if group.card}, names)
    for head, group in by_head.items():  # OPeRA's parts of one result need not share a container
        # A generic card's add-to-cart often sits in a form of its own (`<card>.form.add_to_cart`): still the card's.
        group.parts.extend(with_forms[head] if group.card and head == group.head else under[head])
    for index, group in enumerate(groups):
        if name_of.get(group.node.mem_id, "") in ("", *group.links):
            _widen(
                group,
                node_of,
                groups[index - 1] if index else None,
                groups[index + 1] if index + 1 < len(groups) else None,
            )
    return groups, list(sections.values())


def _card_form_parts(heads: set[str], names: list[str]) -> dict[str, list[str]]:
    """Each card head's names, with those of the form inside the card (`<card>.form.add_to_cart`, the generic
    simplifier's unlabelled form landmark), in document order."""
    found: dict[str, list[str]] = {head: [] for head in heads}
    for name in names:
        head = name.rpartition(".")[0]
        if head in found:
            found[head].append(name)
        elif head.endswith(".form") and (card := head[: -len(".form")]) in found:
            found[card].append(name)
    return found


def _widen(
    group: ProductBlock, node_of: dict[str, LexborNode], before: ProductBlock | None, after: ProductBlock | None
) -> None:
    """A product named only by its parts (`main.<slug>.title`, `.add_to_cart` from the generic simplifier) reads
    its price and stars from the smallest element holding all its parts, unless that also holds a neighbour."""
    chain: list[LexborNode] = []
    node: LexborNode | None = group.node
    while node is not None and node.tag not in ("body", "html"):
        chain.append(node)
        node = node.parent
    depth_of = {n.mem_id: depth for depth, n in enumerate(chain)}
    widest = 0
    for name in group.parts:
        part = node_of.get(name)
        while part is not None and part.mem_id not in depth_of:
            part = part.parent
        if part is None:
            return  # the parts meet only at the page itself
        widest = max(widest, depth_of[part.mem_id])
    if widest == 0:
        return
    block = chain[widest]
    for neighbour in (before, after):
        node = node_of.get(neighbour.links[0]) if neighbour is not None else None
        while node is not None:
            if node.mem_id == block.mem_id:
                return
            node = node.parent
    group.node = block


def _same_product(owner_name: str, head: str) -> bool:
    """`search_results.x` holds `search_results.x.product_name` and `4_stars_and_above.x.product_title`."""
    return owner_name == head or ("." in owner_name and owner_name.rpartition(".")[2] == head.rpartition(".")[2])


def _named_ancestor(node: LexborNode, name_of: dict[int, str]) -> LexborNode | None:
    parent = node.parent
    while parent is not None:
        if parent.mem_id in name_of:
            return parent
        parent = parent.parent
    return None


def elements_by_block(nodes: list[LexborNode], blocks: list[ProductBlock]) -> dict[int, list[LexborNode]]:
    """Which product block (by its node's mem_id) each of `nodes` lies in, in one walk up per element that
    stops at the first ancestor already placed: linear in the page."""
    block_ids = {block.node.mem_id for block in blocks}
    placed: dict[int, int | None] = {}
    inside: dict[int, list[LexborNode]] = {}
    for node in nodes:
        path: list[int] = []
        current: LexborNode | None = node
        found: int | None = None
        while current is not None:
            mem_id = current.mem_id
            if mem_id in block_ids:
                found = mem_id
                break
            if mem_id in placed:
                found = placed[mem_id]
                break
            path.append(mem_id)
            current = current.parent
        for mem_id in path:
            placed[mem_id] = found
        if found is not None:
            inside.setdefault(found, []).append(node)
    return inside


def remove_blocks(nodes: list[LexborNode]) -> None:
    """Decompose `nodes`, deepest first: a node inside a freed subtree must never be touched."""
    unique = {node.mem_id: node for node in nodes}
    for node in sorted(unique.values(), key=_depth, reverse=True):
        node.decompose()


def _depth(node: LexborNode) -> int:
    depth = 0
    parent = node.parent
    while parent is not None:
        depth += 1
        parent = parent.parent
    return depth
