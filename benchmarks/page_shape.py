"""Why pages are bounded by depth, element count and attributes, not only bytes: lexbor's parse time grows with
elements x depth, and with the square of one element's attributes. Times parsing nested `<div>`s and one element
of many attributes directly (the causes), then the whole read of a page (shape check, simplify, parse: what
/predict does with `page.html`) on the worst pages the default limits admit: deepest, most elements, most
attributes, longest text, largest. Run: `python benchmarks/page_shape.py`."""

from __future__ import annotations

import time

from _common import write_result
from selectolax.lexbor import LexborHTMLParser

from agent.page.parse import parse_page
from agent.page.read_page import DEFAULT_MAX_PAGE_BYTES, read_page
from agent.page.shape import (
    DEFAULT_MAX_ATTRIBUTES,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ELEMENT_ATTRIBUTES,
    DEFAULT_MAX_ELEMENTS,
    check_page_shape,
)
from agent.page.simplifier import simplify


def _seconds(work) -> float:
    started = time.perf_counter()
    work()
    return round(time.perf_counter() - started, 3)


def nested(depth: int) -> str:
    return "<html><body>" + "<div>" * depth + "x" + "</div>" * depth + "</body></html>"


def admitted(elements: int, depth: int = DEFAULT_MAX_DEPTH - 6) -> str:
    """As deep as the limit allows, repeated up to `elements` elements: the worst page that passes."""
    return "<html><body>" + ("<div>" * depth + "</div>" * depth) * (elements // depth) + "</body></html>"


def main() -> None:
    unbounded = [
        {"nested_divs": n, "lexbor_parse_s": _seconds(lambda n=n: LexborHTMLParser(nested(n)))}
        for n in (12_500, 25_000, 50_000)
    ]
    bounded = []
    for elements in (50_000, 100_000, DEFAULT_MAX_ELEMENTS - 1_000):
        page = admitted(elements)
        bounded.append(
            {
                "elements": elements,
                "bytes": len(page),
                "depth": DEFAULT_MAX_DEPTH - 4,
                "check_s": _seconds(lambda page=page: check_page_shape(page)),
                "simplify_s": _seconds(lambda page=page: simplify(page)),
                "parse_page_s": _seconds(lambda page=page: parse_page(page)),
            }
        )
    attributes = [
        {"attributes_on_one_element": n, "lexbor_parse_s": _seconds(lambda n=n: LexborHTMLParser(one_element(n)))}
        for n in (1_000, 2_500, 5_000, 10_000)
    ]
    worst = [_read_whole(name, page) for name, page in admitted_pages()]
    write_result(
        "page_shape",
        {
            "limits": {
                "max_depth": DEFAULT_MAX_DEPTH,
                "max_elements": DEFAULT_MAX_ELEMENTS,
                "max_element_attributes": DEFAULT_MAX_ELEMENT_ATTRIBUTES,
                "max_attributes": DEFAULT_MAX_ATTRIBUTES,
                "max_page_bytes": DEFAULT_MAX_PAGE_BYTES,
            },
            "unbounded_nesting": unbounded,
            "admitted_pages": bounded,
            "unbounded_attributes": attributes,
            "worst_admitted_reads": worst,
            "worst_read_s": max(row["read_s"] for row in worst),
        },
    )


def one_element(attributes: int) -> str:
    return "<div " + " ".join(f"a{i}=x" for i in range(attributes)) + ">x</div>"


def _fill(body: str, limit: int = DEFAULT_MAX_PAGE_BYTES - 100) -> str:
    return "<html><body>" + body[: limit - 30] + "</body></html>"


def admitted_pages() -> list[tuple[str, str]]:
    """The worst page the default limits admit along each axis (all under the byte limit)."""
    per = DEFAULT_MAX_ELEMENT_ATTRIBUTES
    widest = one_element(per) * (DEFAULT_MAX_ATTRIBUTES // per)
    buttons = '<button name="b" class="c">Buy</button>' * (DEFAULT_MAX_ATTRIBUTES // 2 - 1_000)
    return [
        ("most attributes: 100 elements of 1,000", "<html><body>" + widest + "</body></html>"),
        ("most attributes, then text to the byte limit", _fill(widest + "words " * 400_000)),
        ("one text node to the byte limit", _fill("<p>" + "words " * 400_000 + "</p>")),
        ("elements with attributes to the byte limit", _fill(buttons)),
        ("deepest, to the element limit", admitted(DEFAULT_MAX_ELEMENTS - 1_000)),
    ]


def _read_whole(name: str, page: str) -> dict:
    check_page_shape(page)  # admitted, or the benchmark is wrong
    return {
        "page": name,
        "bytes": len(page.encode()),
        "read_s": _seconds(lambda: read_page(page, simplified=False, max_bytes=DEFAULT_MAX_PAGE_BYTES * 2)),
        "parse_simplified_s": _seconds(lambda: parse_page(page)),
    }


if __name__ == "__main__":
    main()
