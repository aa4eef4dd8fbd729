"""Why pages are bounded by depth and element count, not only bytes: lexbor's parse time grows with elements x
depth. Times parsing nested `<div>`s directly (the cause), and the shape check plus simplify + parse_page on the
largest pages the default limits admit (linear after the bound). Run: `python benchmarks/page_shape.py`."""

from __future__ import annotations

import time

from _common import write_result
from selectolax.lexbor import LexborHTMLParser

from agent.page.parse import parse_page
from agent.page.shape import DEFAULT_MAX_DEPTH, DEFAULT_MAX_ELEMENTS, check_page_shape
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
    unbounded = [{"nested_divs": n, "lexbor_parse_s": _seconds(lambda: LexborHTMLParser(nested(n)))}
                 for n in (12_500, 25_000, 50_000)]
    bounded = []
    for elements in (50_000, 100_000, DEFAULT_MAX_ELEMENTS - 1_000):
        page = admitted(elements)
        bounded.append({"elements": elements, "bytes": len(page), "depth": DEFAULT_MAX_DEPTH - 4,
                        "check_s": _seconds(lambda: check_page_shape(page)),
                        "simplify_s": _seconds(lambda: simplify(page)),
                        "parse_page_s": _seconds(lambda: parse_page(page))})
    write_result("page_shape", {"limits": {"max_depth": DEFAULT_MAX_DEPTH, "max_elements": DEFAULT_MAX_ELEMENTS},
                                "unbounded_nesting": unbounded, "admitted_pages": bounded})


if __name__ == "__main__":
    main()
