"""Turning the pages of a spec into what twins read: fetched, read from disk or given inline, simplified, parsed.

Done once per variant page before any twin runs, so a thousand twins share one parsed Observation (and the
behaviour model's page index cached on it), and a broken page fails the spec before work starts.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import httpx

from agent.allowed_hosts import HostAllowList, canonical
from agent.experiments.spec import ExperimentSpec, PageSpec, SpecError
from agent.exports.decision_record import page_sha256
from agent.page.observation import Observation
from agent.page.read_page import DEFAULT_MAX_PAGE_BYTES, PageRefused, read_page
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits

log = logging.getLogger("twinsim.experiments")
FETCH_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class ResolvedPage:
    simplified_html: str
    url: str | None
    observation: Observation

    @cached_property
    def text(self) -> str:
        """All the page's visible text, for a task judged by text (the Observation keeps only its start)."""
        from selectolax.lexbor import LexborHTMLParser

        body = LexborHTMLParser(self.simplified_html).body
        return body.text(deep=True, separator=" ") if body is not None else ""

    @cached_property  # every unit on the page asks; hashing ~100 KB each time cost 0.13 s per 2,000 units
    def key(self) -> str:
        """Identifies the page's content, so identical pages in two variants share recalled memories."""
        return hashlib.sha256(f"{self.url}\n{self.simplified_html}".encode()).hexdigest()[:16]

    @cached_property
    def sha256(self) -> str:
        """The content hash the decision export stores the page under (pages/<sha256>.html)."""
        return page_sha256(self.simplified_html)


MAX_REDIRECTS = 5


def fetch(
    url: str,
    timeout_s: float = FETCH_TIMEOUT_S,
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    allowed: HostAllowList | None = None,
) -> str:
    """GET a page. With `allowed`, every hop (the URL and each redirect) must be on an allowed host, and every
    failure gives the same message, so a caller learns nothing about hosts and ports it may not reach."""
    if allowed is None:
        return _get(url, timeout_s, max_bytes, follow_redirects=True)[1]
    hop = url
    for _ in range(MAX_REDIRECTS + 1):
        if not allowed.allows(hop):
            break
        try:  # what a browser would request, not what urllib would read
            response, text = _get(canonical(hop), timeout_s, max_bytes, follow_redirects=False)
        except SpecError as error:
            log.info("fetch of %s refused: %s", hop, error)
            break
        if not response.is_redirect:
            return text
        hop = str(response.url.join(response.headers.get("location", "")))
    raise SpecError(f"could not fetch {url}: not on an allowed host (TWINSIM_ALLOWED_HOSTS), or no page answered")


def _get(url: str, timeout_s: float, max_bytes: int, *, follow_redirects: bool) -> tuple[httpx.Response, str]:
    try:
        response = httpx.get(
            url, timeout=timeout_s, follow_redirects=follow_redirects, headers={"user-agent": "twinsim-experiments/0.1"}
        )
    except httpx.TimeoutException:
        raise SpecError(f"could not fetch {url}: no answer within {timeout_s:g} s") from None
    except httpx.HTTPError as error:
        raise SpecError(f"could not fetch {url}: {type(error).__name__}: {error}") from None
    if response.status_code >= 400:
        raise SpecError(f"could not fetch {url}: HTTP {response.status_code}")
    if len(response.content) > max_bytes:
        raise SpecError(f"{url} is over {max_bytes} bytes")
    return response, response.text


def resolve_page(
    page: PageSpec,
    *,
    base_dir: Path | None,
    allow_paths: bool = True,
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    where: str = "page",
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
    allowed: HostAllowList | None = None,
) -> ResolvedPage:
    simplified: bool | None
    if page.simplified_html is not None:
        html, simplified = page.simplified_html, True
    elif page.html is not None:
        html, simplified = page.html, False
    elif page.path is not None:
        if not allow_paths:
            raise SpecError(
                f"{where}: file paths are read only by the CLI; send the page as simplified_html, html or url"
            )
        path = Path(page.path)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        try:
            html = path.read_text(errors="replace")
        except OSError as error:
            raise SpecError(f"{where}: cannot read {path}: {error.strerror or error}") from None
        simplified = None if page.format == "auto" else page.format == "simplified"
    else:
        assert page.url is not None  # a PageSpec names one source (PageSpec's validation)
        html = fetch(page.url, max_bytes=max_bytes, allowed=allowed)
        simplified = None if page.format == "auto" else page.format == "simplified"
    url = page.page_url or page.url
    try:
        read = read_page(html, url=url, simplified=simplified, max_bytes=max_bytes, limits=limits)
    except PageRefused as error:
        raise SpecError(f"{where}: {error}") from None
    html, observation = read.simplified_html, read.observation
    if observation.empty:
        raise SpecError(f"{where}: the page has no element a twin could act on (no name= ids after simplifying)")
    return ResolvedPage(simplified_html=html, url=url, observation=observation)


def resolve_variants(
    spec: ExperimentSpec,
    *,
    base_dir: Path | None = None,
    allow_paths: bool = True,
    max_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
    allowed: HostAllowList | None = None,
) -> dict[str, list[ResolvedPage]]:
    """variant name -> its pages, parsed (live variants have none); raises SpecError naming the variant and page."""
    return {
        variant.name: [
            resolve_page(
                page,
                base_dir=base_dir,
                allow_paths=allow_paths,
                max_bytes=max_bytes,
                where=f"variant '{variant.name}' page {i + 1}",
                limits=limits,
                allowed=allowed,
            )
            for i, page in enumerate(variant.pages)
        ]
        for variant in spec.variants
        if not variant.live  # live variants are browsed, not fetched once
    }
