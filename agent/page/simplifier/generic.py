"""The generic fallback: any shop page, no recipe. Keep what a shopper sees, name what they can act on.

Interactive elements (links, buttons, inputs, selects, text areas, ARIA widgets, onclick targets) get a
dotted name: the path of the landmarks and sections around them (header, nav, main, footer, a product
card named by its heading, ...) and a slug of their text or label, e.g. `main.blue_mug.add_to_cart`.
Names come from text, never from positions, so reloading the page gives the same names; repeats get a
stable `_2`, `_3` in document order. Visible text (titles, prices, ratings) is kept as text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import urlparse

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page.simplifier.dom import attr, fold, label_of, text_of
from agent.page.simplifier.slug import UniqueNames, join_name, slugify
from agent.page.simplifier.source_map import SourceMap

SLUG_MAX = 40
CLICKABLE_ROLES = {
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "switch",
    "treeitem",
    "slider",
    "spinbutton",
}
TYPING_ROLES = {"textbox", "searchbox", "combobox"}
TEXT_INPUT_TYPES = {
    "text",
    "search",
    "email",
    "tel",
    "number",
    "password",
    "url",
    "date",
    "datetime-local",
    "month",
    "week",
    "time",
    "",
}
LANDMARK_TAGS = {
    "header": "header",
    "nav": "nav",
    "main": "main",
    "aside": "sidebar",
    "footer": "footer",
    "form": "form",
    "dialog": "dialog",
}
LANDMARK_ROLES = {
    "banner": "header",
    "navigation": "nav",
    "main": "main",
    "complementary": "sidebar",
    "contentinfo": "footer",
    "search": "search",
    "dialog": "dialog",
    "form": "form",
}
SECTION_TAGS = {"section", "article", "fieldset"}
HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
INLINE_TAGS = {
    "span",
    "b",
    "strong",
    "em",
    "i",
    "small",
    "label",
    "sup",
    "sub",
    "abbr",
    "time",
    "data",
    "mark",
    "s",
    "del",
    "ins",
    "u",
    "font",
    "bdi",
    "bdo",
    "q",
    "cite",
    "code",
    "kbd",
    "var",
    "big",
    "wbr",
    "br",
    "img",
    "picture",
    "source",
    "meter",
    "progress",
    "output",
}
STRUCK_TAGS = frozenset({"s", "del"})
RATING_VALUE = re.compile(r"[0-5](?:\.\d{1,2})?")
STARS_ALT = re.compile(r"([0-5](?:\.\d)?)\s+out\s+of\s+5\s+stars?", re.IGNORECASE)
STARS_FILE = re.compile(r"(?:^|[-_])stars?[-_]?([0-5])(?:[-_]([05]))?$", re.IGNORECASE)
RATING_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
RATING_CLASS = re.compile(r"(?:star[-_]?)?rating[-_]([0-5])(?:[-_](5))?")
ADD_TO_CART = re.compile(r"\badd to (?:cart|basket|bag|trolley)\b", re.IGNORECASE)
QUANTITY = re.compile(r"quantity|\bqty\b", re.IGNORECASE)
CARD_CLASS = re.compile(r"(?:^|[\s_-])(?:product|card|item|tile|result|offer)s?(?:$|[\s_-])", re.IGNORECASE)
CARD_HEADING = "h1, h2, h3, h4, h5, h6, legend, [itemprop=name], [class*=title], [class*=name]"
_SELECTED = ' selected=""'
GENERIC_HIDDEN = '[aria-hidden="true"], dialog:not([open])'


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
                self._text(child.text_content or "")
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
                stack.append((iter(child.iter(include_text=True)), path, self.flush))

    def _close_section(self, start: int, tag: str) -> None:
        self.flush()
        if len(self.run.parts) == start + 1:
            del self.run.parts[start:]  # nothing inside: no empty shell
        else:
            self.run.parts.append(f"</{tag}>")

    def flush(self, wrap: str = "p") -> None:
        if self.buffer and self.buffer_has_text:
            self.run.parts.append(f"<{wrap}>{''.join(self.buffer).strip()}</{wrap}>")
        elif self.buffer:  # only named elements, no loose text: no wrapper needed
            self.run.parts.extend(self.buffer)
        self.buffer = []
        self.buffer_has_text = False

    def _text(self, raw: str) -> None:
        text = fold(raw, None)
        if not text:
            if self.buffer and not self.buffer[-1].endswith(" "):
                self.buffer.append(" ")
            return
        lead = " " if raw[:1].isspace() and self.buffer else ""
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
        tag = "a" if node.tag == "a" else "button" if node.tag in ("button", "input") else "span"
        shown = text or label
        role_attr = f' role="{esc(role)}"' if role and tag == "span" else ""
        label_attr = f' aria-label="{esc(label)}"' if label and label != shown else ""
        if "disabled" in node.attributes or node.attributes.get("aria-disabled") == "true":
            label_attr += ' aria-disabled="true"'
        return f'<{tag} name="{esc(name)}"{role_attr}{label_attr}>{esc(shown, quote=False)}</{tag}>'


def _is_product_choice(select: LexborNode, label: str) -> bool:
    """A drop-down that chooses what to buy: in the same form as an add-to-cart button, and not the quantity."""
    if QUANTITY.search(label) or QUANTITY.search(select.attributes.get("name") or ""):
        return False
    form = _ancestor(select, "form")
    if form is None:
        return False
    return any(ADD_TO_CART.search(text_of(b) or attr(b, "value")) for b in form.css("button, input[type=submit]"))


def _rating_attribute(attrs: dict[str, str | None]) -> str | None:
    """The value of a rating widget's `rating` / `data-rating` / `data-score` attribute when it is 0-5."""
    for key in ("rating", "data-rating", "data-score", "data-stars"):
        value = (attrs.get(key) or "").strip()
        if RATING_VALUE.fullmatch(value) and float(value) <= 5:
            return value
    return None


def _rating_class(attrs: dict[str, str | None]) -> str | None:
    """The value a rating widget's class gives it, as shops whose stylesheet draws the stars name it:
    `star-rating Four`, `rating-4`, `rating-4-5` (4.5)."""
    for token in (attrs.get("class") or "").lower().split():
        if token in RATING_WORDS:
            return RATING_WORDS[token]
        if found := RATING_CLASS.fullmatch(token):
            whole, half = found.groups()
            return f"{whole}.5" if half and whole != "5" else whole
    return None


def _star_picture(attrs: dict[str, str | None]) -> str | None:
    """The rating a picture of stars shows: from its alt text ("4.5 out of 5 stars") or, when it has none,
    from its file name as older shops name them (stars_5.gif, stars-4-5._V1_.gif -> "4.5")."""
    alt = fold(attrs.get("alt"))
    if alt:
        found = STARS_ALT.search(alt)
        return found.group(1) if found else None
    stem = urlparse(attrs.get("src") or "").path.rsplit("/", 1)[-1].split(".", 1)[0]
    if not (found := STARS_FILE.search(stem)):
        return None
    whole, half = found.groups()
    value = f"{whole}.{half}" if half == "5" else whole
    return value if float(value) <= 5 else None


def _is_interactive(node: LexborNode) -> bool:
    tag = node.tag
    attrs = node.attributes
    if tag == "a":
        return "href" in attrs or "onclick" in attrs or "role" in attrs
    if tag in ("button", "select", "textarea", "summary"):
        return True
    if tag == "input":
        return (attrs.get("type") or "").lower() != "hidden"
    role = (attrs.get("role") or "").lower()
    return (
        role in CLICKABLE_ROLES or role in TYPING_ROLES or "onclick" in attrs or attrs.get("contenteditable") == "true"
    )


def _section_part(node: LexborNode, tree: LexborHTMLParser, cards: dict[int, bool]) -> str | None:
    """The name part a landmark or section contributes, or None when the element is not one."""
    tag = node.tag
    role = (node.attributes.get("role") or "").lower()
    default = LANDMARK_TAGS.get(tag or "") or LANDMARK_ROLES.get(role)
    if default is None and not _is_card(node, cards):
        return None
    own_label = slugify(
        label_of(node, tree) if ("aria-label" in node.attributes or "aria-labelledby" in node.attributes) else "",
        SLUG_MAX,
    )
    if default is not None:
        return own_label or default
    heading = _own_heading(node, cards)
    heading_part = slugify(text_of(heading, 120), SLUG_MAX) if heading is not None else ""
    part = heading_part or own_label or slugify(node.attributes.get("id"), SLUG_MAX)
    return part or None


def _own_heading(node: LexborNode, known: dict[int, bool]) -> LexborNode | None:
    """The heading a section is named by: the first one inside it that is not inside one of a list of cards it
    holds (two or more cards of the same tag and class: product tiles, reviews). A section that holds a list
    of products is not named after the first product; a product page that shows a few is still named by its title."""
    found: list[tuple[LexborNode, tuple[str, str] | None]] = []
    cards: dict[tuple[str, str], set[int]] = {}
    for heading in node.css(CARD_HEADING):
        if heading.mem_id == node.mem_id:
            continue
        card = _card_between(heading, node, known)
        kind = (card.tag or "", card.attributes.get("class") or "") if card is not None else None
        if card is not None and kind is not None:
            cards.setdefault(kind, set()).add(card.mem_id)
            if len(cards[kind]) > 1:
                continue  # in a list of cards: it cannot name the section
        if not text_of(heading, 120):
            continue
        if kind is None and not found:
            return heading  # the section's own heading, first in the document: nothing can come before it
        found.append((heading, kind))
    return next((heading for heading, kind in found if kind is None or len(cards[kind]) < 2), None)


def _card_between(heading: LexborNode, section: LexborNode, known: dict[int, bool]) -> LexborNode | None:
    """The closest card or section between a heading and the section it sits in, if any."""
    parent = heading.parent
    while parent is not None and parent.mem_id != section.mem_id:
        if _is_card(parent, known):
            return parent
        parent = parent.parent
    return None


def _is_card(node: LexborNode, known: dict[int, bool]) -> bool:
    """A section, an item in a microdata scope, or a div/li whose class says product, card, item ... (answers kept
    in `known` by mem_id: a heading's ancestors are asked again for every heading of every enclosing section)."""
    found = known.get(node.mem_id)
    if found is None:
        found = known[node.mem_id] = (
            node.tag in SECTION_TAGS
            or "itemscope" in node.attributes
            or (node.tag in ("div", "li") and CARD_CLASS.search(node.attributes.get("class") or "") is not None)
        )
    return found


def _fallback_part(node: LexborNode) -> str:
    """A name part for an element with no text or label: its href's last path segment, else its kind."""
    href = node.attributes.get("href") or ""
    if href and not href.startswith(("javascript:", "#")):
        segment = [s for s in urlparse(href).path.split("/") if s]
        if segment and (slug := slugify(segment[-1], SLUG_MAX)):
            return slug
    role = (node.attributes.get("role") or "").lower()
    return {"a": "link", "button": "button", "select": "select", "textarea": "text_area", "input": "input"}.get(
        node.tag or "", role or "control"
    )


def _ancestor(node: LexborNode, tag: str) -> LexborNode | None:
    parent = node.parent
    while parent is not None:
        if parent.tag == tag:
            return parent
        parent = parent.parent
    return None
