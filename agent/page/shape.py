"""Refuse pages no shop would serve before an HTML parser sees them, because parsing cost is not bounded by bytes.

The HTML tree builder (lexbor, under selectolax) scans its stack of open elements for many start tags (a `<div>`
first closes an open `<p>` "in button scope"), so its time grows with elements x depth: 50,000 nested `<div>`s
take about 3 s, a 2 MB page of them many minutes (`python benchmarks/page_shape.py`). With the nesting depth
bounded, parsing, simplifying and reading a page are linear in its size, but for one more thing: the tree builder
compares each attribute of an element with those before it (duplicates are dropped), so one element's attributes
cost their number squared (10,000 on one `<div>` took 3.5 s, 200,000 six minutes). Attributes are counted per
element and in total, so the worst page within the limits parses in seconds (`python benchmarks/page_shape.py`).

`check_page_shape` estimates depth and element count in one linear pass of a regular expression over the tags,
closing elements the way HTML implies (`<li>` ends an open `<li>`, a block ends an open `<p>`, an end tag closes
what it matches), so ordinary pages with unclosed list items are not counted deeper than they are. It errs on
the side of counting deeper: `<div/>` opens a div in HTML, and formatting elements (`<b>`, `<a>`, ...) closed only
implicitly stay counted until their own end tag, since the parser reopens them (`<p><b><b></p>x` nests the b's
again around x).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

DEFAULT_MAX_DEPTH = 256  # real shop pages nest 20-60 deep (Amazon product pages about 40)
DEFAULT_MAX_ELEMENTS = 200_000  # a large Amazon search page has about 15,000 elements
DEFAULT_MAX_ELEMENT_ATTRIBUTES = 1_000  # the real pages of corpus/ and product-pages/ have at most ~700 on one
DEFAULT_MAX_ATTRIBUTES = 100_000  # and at most ~19,000 in all


@dataclass(frozen=True)
class PageShapeLimits:
    max_depth: int = DEFAULT_MAX_DEPTH
    max_elements: int = DEFAULT_MAX_ELEMENTS
    max_element_attributes: int = DEFAULT_MAX_ELEMENT_ATTRIBUTES
    max_attributes: int = DEFAULT_MAX_ATTRIBUTES


DEFAULT_PAGE_LIMITS = PageShapeLimits()


class PageTooComplex(ValueError):
    """The page nests deeper or holds more elements or attributes than the limits allow; the message says which."""


_TOKEN = re.compile(r"<!--|<(/?)([A-Za-z][^\s/>]*)[^>]*?(/?)>", re.S)
_ATTRIBUTE = re.compile(r"""[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]*))?""")
_VOID = frozenset("area base br col embed hr img input keygen link meta param source track wbr".split())  # noqa: SIM905 - a list of words reads best as words
# Their content is text to the parser, never tags (noscript is not here: a parser may read its content as markup)
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes plaintext".split())  # noqa: SIM905 - a list of words reads best as words
_FOREIGN = frozenset(("svg", "math"))
_FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())  # noqa: SIM905 - a list of words reads best as words
_BLOCKS_CLOSING_P = frozenset(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form "  # noqa: SIM905 - a list of words reads best as words
    "h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section table ul li dd dt".split()
)
_IMPLIED_END = {  # a start tag of the key ends open elements of these names on top of the stack
    "li": {"li"},
    "dt": {"dt", "dd"},
    "dd": {"dt", "dd"},
    "option": {"option"},
    "optgroup": {"option", "optgroup"},
    "tr": {"tr", "td", "th"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "thead": {"tr", "td", "th", "tbody", "thead", "tfoot"},
    "tbody": {"tr", "td", "th", "tbody", "thead", "tfoot"},
    "tfoot": {"tr", "td", "th", "tbody", "thead", "tfoot"},
    "rb": {"rb", "rt", "rp"},
    "rt": {"rb", "rt", "rp"},
    "rp": {"rb", "rt", "rp"},
}


def check_page_shape(html: str | None, limits: PageShapeLimits = DEFAULT_PAGE_LIMITS) -> None:
    """Raise PageTooComplex when the page nests deeper than `max_depth`, has more than `max_elements` elements, more
    than `max_element_attributes` attributes on one element or more than `max_attributes` in all."""
    if not html:
        return
    stack: list[str] = []
    open_names: Counter[str] = Counter()
    carried: Counter[str] = Counter()  # formatting elements closed implicitly: the parser reopens them later

    def pop() -> str:
        name = stack.pop()
        open_names[name] -= 1
        return name

    elements = attributes = 0
    position = 0
    end = html.rfind(">") + 1  # a tag needs a '>' after it: searching no further keeps unclosed '<'s linear
    while (match := _TOKEN.search(html, position, end)) is not None:
        position = match.end()
        if match.group(0) == "<!--":  # (its own name for the end: `end`, the search's bound, must stay)
            closed = html.find("-->", position)
            position = len(html) if closed < 0 else closed + 3
            continue
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(3)
        if closing:
            if open_names[name]:  # pop to the matching element; each element is pushed and popped once
                while (top := pop()) != name:
                    if top in _FORMATTING:
                        carried[top] += 1
            elif carried[name]:
                carried[name] -= 1
            continue
        elements += 1
        if elements > limits.max_elements:
            raise PageTooComplex(
                f"the page has more than {limits.max_elements} elements "
                f"(TWINSIM_MAX_PAGE_ELEMENTS); no shop page needs that many"
            )
        if match.end(2) < match.end() - 1:  # the tag has more than its name: count its attributes
            if match.end() - match.end(2) > _COUNT_EXACTLY_FROM:
                here = _count_attributes(
                    html, match.end(2), match.end() - 1 - len(self_closing), limits.max_element_attributes
                )
            else:  # a short tag holds too few attributes to cost much: its values are counted, in C
                here = html.count("=", match.end(2), match.end())
            attributes += here
            if here > limits.max_element_attributes:
                raise PageTooComplex(
                    f"a <{name}> element has more than {limits.max_element_attributes} attributes "
                    "(TWINSIM_MAX_ELEMENT_ATTRIBUTES); parse time grows with their square"
                )
            if attributes > limits.max_attributes:
                raise PageTooComplex(
                    f"the page has more than {limits.max_attributes} attributes "
                    "(TWINSIM_MAX_PAGE_ATTRIBUTES); no shop page needs that many"
                )
        if (
            name in _VOID
            or (self_closing and open_names["svg"] + open_names["math"] > 0)
            or (self_closing and name in _FOREIGN)
        ):
            continue
        ends = _IMPLIED_END.get(name, set()) | ({"p"} if name in _BLOCKS_CLOSING_P else set())
        while stack and stack[-1] in ends:
            pop()
        if name in _RAW_TEXT:  # their content is text, not tags: skip to the end tag
            closed = _find_end(html, name, position)
            position = len(html) if closed < 0 else closed
            continue
        stack.append(name)
        open_names[name] += 1
        if len(stack) + carried.total() > limits.max_depth:
            raise PageTooComplex(
                f"the page nests elements more than {limits.max_depth} deep "
                f"(TWINSIM_MAX_PAGE_DEPTH); no shop page nests that deep"
            )


# A tag shorter than this holds at most ~128 attributes (each a name and a space), whose parse cost is small:
# those are estimated by their values (`=`), in C; longer ones are counted exactly.
_COUNT_EXACTLY_FROM = 256


def _count_attributes(html: str, start: int, stop: int, cap: int) -> int:
    """Attributes in html[start:stop] (a tag's text after its name), counting no further than cap + 1."""
    count = 0
    for _ in _ATTRIBUTE.finditer(html, start, stop):
        count += 1
        if count > cap:
            break
    return count


def _find_end(html: str, name: str, start: int) -> int:
    match = re.compile(rf"</{re.escape(name)}", re.I).search(html, start)  # re caches the compiled pattern
    return match.start() if match else -1
