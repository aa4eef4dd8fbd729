"""A page, as a twin reads it: raw HTML is simplified first, then parsed into candidates and facts.

One function for the API, the CLI and experiments, so a page is read, bounded and refused the same way
everywhere; callers turn `PageRefused` into their own answer (HTTP 413, a CLI message, a SpecError). A page whose
elements carry their own ids (Mind2Web's cleaned_html, agent/page/node_pages.py) is read as it is, however it is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.byte_bounded_cache import byte_bounded_cache
from agent.page.node_pages import NODE_ID_ATTRIBUTE, looks_like_node_page
from agent.page.observation import Observation
from agent.page.parse import parse_page
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits, PageTooComplex

DEFAULT_MAX_PAGE_BYTES = 2_000_000


class PageRefused(ValueError):
    """The page is over the byte, depth or element limits; the message names the limit."""


@dataclass(frozen=True)
class ReadPage:
    simplified_html: str
    observation: Observation


def looks_simplified(html: str) -> bool:
    """OPeRA simplified HTML names its elements; raw Amazon pages carry data-asin and no name= ids."""
    return ' name="' in html and "data-asin" not in html


def read_page(
    html: str,
    *,
    url: str | None = None,
    simplified: bool | None = None,
    label: str = "the page",
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
) -> ReadPage:
    """Simplify (unless `simplified`, or when None unless it looks simplified) and parse, within the limits.
    Pages over the limits are refused before they are parsed.

    The same page comes again and again (a population on one page, a user polling one page): the last
    `PAGE_CACHE_SIZE` pages read are kept (within `PAGE_CACHE_BYTES`), so a page is parsed once per content and URL,
    and the one
    Observation object that comes back lets the brain's own per-page index (keyed by that object) hit too."""
    if len(html.encode()) > max_bytes:
        raise PageRefused(f"{label} is over {max_bytes} bytes")
    try:
        return _read_page_cached(html, url, simplified, max_bytes, limits)
    except _SimplifiedTooLarge:
        raise PageRefused(f"{label} is over {max_bytes} bytes once simplified") from None
    except PageTooComplex as error:
        raise PageRefused(str(error)) from None


PAGE_CACHE_SIZE = 64
PAGE_CACHE_BYTES = 64_000_000  # a read page holds ~3x its HTML (its observation): ~20 pages of 1 MB


def _read_page_bytes(args: tuple, page: ReadPage) -> int:
    """What a cached page holds, roughly: its HTML (the key), its simplified HTML and the observation parsed from
    it (about twice that, measured: 64 pages of 1.5 MB took ~300 MB)."""
    return len(args[0]) + 3 * len(page.simplified_html)


class _SimplifiedTooLarge(ValueError):
    """Raised inside the cache, which must not depend on the caller's label."""


@byte_bounded_cache(PAGE_CACHE_SIZE, PAGE_CACHE_BYTES, _read_page_bytes)
def _read_page_cached(
    html: str, url: str | None, simplified: bool | None, max_bytes: int, limits: PageShapeLimits
) -> ReadPage:
    if NODE_ID_ATTRIBUTE in html and looks_like_node_page(html):
        simplified = True  # its elements carry their own ids (Mind2Web): parse_page reads them as they are
    elif simplified is None:
        simplified = looks_simplified(html)
    if not simplified:
        from agent.page.simplifier import (
            simplify,  # selectolax and the recipes: only when raw HTML comes
        )

        html = simplify(html, url=url, limits=limits)
        if len(html.encode()) > max_bytes:
            raise _SimplifiedTooLarge
    return ReadPage(html, parse_page(html, url=url, limits=limits))


def observe_page(
    html: str,
    *,
    url: str | None = None,
    simplified: bool | None = None,
    label: str = "the page",
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
) -> Observation:
    return read_page(html, url=url, simplified=simplified, label=label, max_bytes=max_bytes, limits=limits).observation
