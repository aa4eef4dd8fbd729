"""The generic fallback: any shop page, no recipe. Keep what a shopper sees, name what they can act on.

Interactive elements (links, buttons, inputs, selects, text areas, ARIA widgets, onclick targets) get a
dotted name: the path of the landmarks and sections around them (header, nav, main, footer, a product
card named by its heading, ...) and a slug of their text or label, e.g. `main.blue_mug.add_to_cart`.
Names come from text, never from positions, so reloading the page gives the same names; repeats get a
stable `_2`, `_3` in document order. Visible text (titles, prices, ratings) is kept as text.

This module holds the walk itself; what it recognises lives beside it: generic_vocabulary.py (tags and roles),
generic_sections.py (landmarks, sections, cards), generic_controls.py (interactive elements) and
generic_ratings.py (star ratings drawn rather than written).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page.simplifier.dom import attr, fold, label_of, text_of
from agent.page.simplifier.generic_controls import _ancestor, _fallback_part, _is_interactive, _is_product_choice
from agent.page.simplifier.generic_ratings import _rating_attribute, _rating_class, _star_picture
from agent.page.simplifier.generic_sections import _section_part
from agent.page.simplifier.generic_vocabulary import (
    HEADING_TAGS,
    INLINE_TAGS,
    LANDMARK_TAGS,
    SECTION_TAGS,
    SLUG_MAX,
    STRUCK_TAGS,
    TEXT_INPUT_TYPES,
    TYPING_ROLES,
)
from agent.page.simplifier.slug import UniqueNames, join_name, slugify
from agent.page.simplifier.source_map import SourceMap

_SELECTED = ' selected=""'
# aria-hidden hides from assistive technology, not from the eye: shops mark icons and decorative copies so, which a
# shopper needs no more than a screen reader does, but a subtree holding the page's main heading (h1) is the page
# itself, hidden from screen readers while a consent banner or dialog holds their focus, and is kept.
GENERIC_HIDDEN = '[aria-hidden="true"], dialog:not([open])'


# A block the shop marks as the stock line ("availability-box", "product-availability", id="availability") keeps
# that mark, as the Amazon recipes' stock line has it, so the page's facts read the stock from the line itself rather
# than from words anywhere on the page (agent/page/own_product.py).
_STOCK_LINE = ' class="availability"'


def _starts_its_element(text: LexborNode) -> bool:
    """A text node that is the first of an element other than a superscript or subscript (cents written "173<sup>34
    </sup>" belong to the amount before them)."""
    parent = text.parent
    return parent is not None and parent.tag not in ("sup", "sub") and text.prev is None


def _marks_stock(node: LexborNode) -> bool:
    return (
        "availability" in (node.attributes.get("class") or "").lower()
        or "availability" in (node.attributes.get("id") or "").lower()
    )


@dataclass
class GenericRun:
    """What the generic walk produced: HTML parts and the names it claimed."""

    parts: list[str] = field(default_factory=list)
    names: UniqueNames = field(default_factory=UniqueNames)
    sources: SourceMap = field(default_factory=SourceMap)  # name -> marker of its raw element (live browsing)


def simplify_generic(
    tree: LexborHTMLParser,
    names: UniqueNames | None = None,
    skip: frozenset[int] | set[int] = frozenset(),
    sources: SourceMap | None = None,
) -> GenericRun:
    """Walk the body and emit the simplified HTML; nodes whose mem_id is in `skip` were already emitted."""
    run = GenericRun(names=names or UniqueNames(), sources=sources or SourceMap())
    for node in reversed(tree.css(GENERIC_HIDDEN)):
        if node.tag != "dialog" and node.css_first("h1") is not None:
            continue  # hidden from screen readers only (a page hides its own body so while a banner is open)
        node.decompose()
    start = tree.body or tree.root
    if start is None:
        return run
    walker = _Walker(tree, run, _label_map(tree), skip)
    walker.walk(start, ())
    walker.flush()
    return run


def _label_map(tree: LexborHTMLParser) -> dict[str, str]:
    """`<label for=id>` texts, so inputs are named by what the shopper reads next to them."""
    labels: dict[str, str] = {}
    for label in tree.css("label[for]"):
        target = label.attributes.get("for") or ""
        if target and (text := text_of(label, 80)):
            labels.setdefault(target, text)
    return labels


class _Walker:
    """Depth-first walk; inline content gathers in a buffer that block boundaries flush as <p>."""

    def __init__(
        self, tree: LexborHTMLParser, run: GenericRun, labels: dict[str, str], skip: frozenset[int] | set[int]
    ) -> None:
        self.tree = tree
        self.skip = skip
        self.run = run
        self.labels = labels
        self.buffer: list[str] = []
        self.buffer_has_text = False
        self.cards: dict[int, bool] = {}  # mem_id -> is a card or section (see _is_card)

    # -- structure --

    def walk(self, root: LexborNode, path: tuple[str, ...]) -> None:
        """Iterative (an explicit stack), so broken pages nested thousands deep cannot overflow Python's stack."""
        stack: list[tuple[Iterator[LexborNode], tuple[str, ...], Callable[[], None] | None]] = [
            (iter(root.iter(include_text=True)), path, None)
        ]
        while stack:
            children, path, on_exit = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                if on_exit is not None:
                    on_exit()
                continue
            tag = child.tag
            if tag == "-text":
                self._text(child.text_content or "", child)
            elif tag in ("-comment", "-doctype") or tag is None or child.mem_id in self.skip:
                continue
            elif _is_interactive(child):
                self._interactive(child, path)
            elif (part := _section_part(child, self.tree, self.cards)) is not None:
                self.flush()
                out_tag = child.tag if child.tag in LANDMARK_TAGS or child.tag in SECTION_TAGS else "div"
                self.run.parts.append(f"<{out_tag}>")
                # A card nested in a card of the same title adds nothing to the name.
                inner = path if path and path[-1] == part else (*path, part)
                stack.append(
                    (
                        iter(child.iter(include_text=True)),
                        inner,
                        partial(self._close_section, len(self.run.parts) - 1, out_tag),
                    )
                )
            elif tag in HEADING_TAGS:
                self.flush()
                stack.append((iter(child.iter(include_text=True)), path, partial(self.flush, tag)))
            elif tag in INLINE_TAGS:
                if tag in STRUCK_TAGS:  # a struck-through price is the old one: say so, as shops' own text does
                    self._text("Was: ")
                self._aria_text(child)
                stack.append((iter(child.iter(include_text=True)), path, None))
            else:  # block-level or unknown: a boundary around its content
                self.flush()
                self._aria_text(child)
                attrs = _STOCK_LINE if _marks_stock(child) else ""
                stack.append((iter(child.iter(include_text=True)), path, partial(self.flush, "p", attrs)))

    def _close_section(self, start: int, tag: str) -> None:
        self.flush()
        if len(self.run.parts) == start + 1:
            del self.run.parts[start:]  # nothing inside: no empty shell
        else:
            self.run.parts.append(f"</{tag}>")

    def flush(self, wrap: str = "p", attrs: str = "") -> None:
        if self.buffer and self.buffer_has_text:
            self.run.parts.append(f"<{wrap}{attrs}>{''.join(self.buffer).strip()}</{wrap}>")
        elif self.buffer:  # only named elements, no loose text: no wrapper needed
            self.run.parts.extend(self.buffer)
        self.buffer = []
        self.buffer_has_text = False

    def _text(self, raw: str, node: LexborNode | None = None) -> None:
        """`node`: the text node, when the text is one; where it starts an element of its own, digits on both sides
        of the boundary are two numbers ("<span>$200</span><span>2 bids</span>" reads "$200 2 bids", not "$2002
        bids")."""
        text = fold(raw, None)
        if not text:
            if self.buffer and not self.buffer[-1].endswith(" "):
                self.buffer.append(" ")
            return
        parted = (
            node is not None
            and text[:1].isdigit()
            and bool(self.buffer)
            and self.buffer[-1][-1:].isdigit()
            and _starts_its_element(node)
        )
        lead = " " if (raw[:1].isspace() or parted) and self.buffer else ""
        trail = " " if raw[-1:].isspace() else ""
        self.buffer.append(lead + html.escape(text, quote=False) + trail)
        self.buffer_has_text = True

    def _aria_text(self, node: LexborNode) -> None:
        """A label that says what symbols show ("Rated 4.5 out of 5" on a row of stars) is kept as text."""
        attrs = node.attributes
        label = attrs.get("aria-label")
        if label and (label := fold(label)) and label not in text_of(node, None):
            self._text(f" {label} ")
        elif "rating" in (attrs.get("class") or "") and (stars := _rating_attribute(attrs) or _rating_class(attrs)):
            self._text(f" {stars} out of 5 stars ")  # stars drawn by style, the value in an attribute or a class
        elif node.tag == "img" and (stars := _star_picture(attrs)):
            self._text(f" {stars} out of 5 stars ")  # a picture of stars: the value is in its alt or file name

    # -- interactive elements --

    def _interactive(self, node: LexborNode, path: tuple[str, ...]) -> None:
        text = self._visible_text(node)
        label = self._label(node)
        part = slugify(text, SLUG_MAX) or slugify(label, SLUG_MAX) or _fallback_part(node)
        if path and part == path[-1]:
            # A card's own title link or image: "main.blue_mug.title" / ".image", not "main.blue_mug.blue_mug".
            part = "title" if text else "image" if node.css_first("img") is not None else "link"
        name = self.run.names.claim(join_name(".".join(path) or "page", part))
        self.run.sources.record(name, node)
        if node.tag == "select" and _is_product_choice(node, label):
            self.buffer.append(self._choices(node, name, label))
            return
        self.buffer.append(self._render(node, name, text, label))

    def _choices(self, node: LexborNode, name: str, label: str) -> str:
        """A drop-down in the form that adds a product to the cart (colour, size) as OPeRA's product pages show
        one: `<name>.drop_down_list.<choice>`, each choice clickable (the browser picks it through its select)."""
        esc = html.escape
        items = []
        for option in node.css("option")[:60]:
            text = text_of(option, 80)
            if not slugify(text, SLUG_MAX) or option.attributes.get("value") == "":
                continue  # the "choose one" placeholder
            choice = self.run.names.claim(join_name(name + ".drop_down_list", slugify(text, SLUG_MAX)))
            self.run.sources.record(choice, option)
            selected = ' aria-selected="true"' if "selected" in option.attributes else ""
            items.append(f'<li name="{esc(choice)}"{selected}>{esc(text, quote=False)}</li>')
        return f'<ul name="{esc(name)}" role="listbox" aria-label="{esc(label)}">{"".join(items)}</ul>'

    def _visible_text(self, node: LexborNode) -> str:
        if node.tag in ("input", "select", "textarea"):
            return ""
        return text_of(node)

    def _label(self, node: LexborNode) -> str:
        if node.tag in ("input", "select", "textarea"):
            node_id = node.attributes.get("id") or ""
            if node_id and node_id in self.labels:
                return self.labels[node_id]
            wrapping = _ancestor(node, "label")
            if wrapping is not None and (text := text_of(wrapping, 80)):
                return text
            return label_of(node, self.tree) or attr(node, "name") or node_id
        own = attr(node, "aria-label") or (label_of(node, self.tree) if "aria-labelledby" in node.attributes else "")
        if own:
            return own
        return "" if text_of(node) else label_of(node, self.tree)  # icon-only controls: alt text, title

    def _render(self, node: LexborNode, name: str, text: str, label: str) -> str:
        esc = html.escape
        kind = (node.attributes.get("type") or "").lower()
        role = (node.attributes.get("role") or "").lower()
        if node.tag == "textarea":
            return (
                f'<textarea name="{esc(name)}" aria-label="{esc(label)}">{esc(text_of(node), quote=False)}</textarea>'
            )
        if node.tag == "select":
            options = "".join(
                f"<option{_SELECTED if 'selected' in o.attributes else ''}>{esc(t, quote=False)}</option>"
                for o in node.css("option")[:60]
                if (t := text_of(o, 80))
            )
            return f'<select name="{esc(name)}" aria-label="{esc(label)}">{options}</select>'
        if (node.tag == "input" and kind in TEXT_INPUT_TYPES) or role in TYPING_ROLES:
            value = attr(node, "value") if node.tag == "input" else text
            placeholder = attr(node, "placeholder")
            extra = f' placeholder="{esc(placeholder)}"' if placeholder else ""
            return (
                f'<input name="{esc(name)}" type="{esc(kind or "text")}" value="{esc(value)}"'
                f' aria-label="{esc(label)}"{extra}>'
            )
        if node.tag == "input" and kind in ("checkbox", "radio"):
            # The visible label text sits next to it already; the box carries it as its accessible name.
            checked = "true" if "checked" in node.attributes else "false"
            return f'<span name="{esc(name)}" role="{kind}" aria-checked="{checked}" aria-label="{esc(label)}"></span>'
        tag = (
            "button"
            if node.tag in ("button", "input")
            else "a"
            if node.tag == "a" or "href" in node.attributes
            else "span"
        )
        shown = text or label
        role_attr = f' role="{esc(role)}"' if role and tag == "span" else ""
        label_attr = f' aria-label="{esc(label)}"' if label and label != shown else ""
        if "disabled" in node.attributes or node.attributes.get("aria-disabled") == "true":
            label_attr += ' aria-disabled="true"'
        return f'<{tag} name="{esc(name)}"{role_attr}{label_attr}>{esc(shown, quote=False)}</{tag}>'
