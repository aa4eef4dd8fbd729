"""Is the start page there at all? One cheap HTTP request before any browser starts, and the same question
asked of the traces afterwards, so a simulation of a dead URL is a failed run with the reason, not a report
of twins that "left after 0 steps".

The request goes through the host allow-list hop by hop (the URL and each redirect), as experiment pages are
fetched; only a host the caller may browse anyway gets the precise reason (refused, DNS, HTTP status), which
the twins' traces would show them in any case.
"""

from __future__ import annotations

import socket

import httpx

from agent.allowed_hosts import HostAllowList, UrlRefused, browser_url
from agent.simulation.trace import TwinTrace

MAX_REDIRECTS = 5
START_FAILURES = ("navigation_failed", "dead_link", "timeout")  # what step 0 fails with when the site is not there


class StartPageUnreachable(ValueError):
    """The start URL cannot be loaded; the message names the URL and the reason."""


def check_start_url(url: str, allowed: HostAllowList | None = None, timeout_s: float = 15.0) -> None:
    """Raise StartPageUnreachable unless a GET of `url` (following up to 5 allowed redirects) answers below 400."""
    hop = url
    with httpx.Client(
        timeout=timeout_s, follow_redirects=False, headers={"user-agent": "twinsim-simulations/0.1"}
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            try:  # the URL as Chromium reads it; a redirect to file:, data:, ftp: ... leaves the web
                hop = browser_url(hop).href
            except UrlRefused as error:
                raise StartPageUnreachable(f"cannot load {url}: {_where(url, hop)}{error}") from None
            _resolve(url, hop)
            if allowed is not None and not allowed.allows(hop):
                raise StartPageUnreachable(
                    f"cannot browse {url}: {_where(url, hop) or 'it '}is not on an allowed host (TWINSIM_ALLOWED_HOSTS)"
                )
            try:
                with client.stream("GET", hop) as response:
                    status, location = response.status_code, response.headers.get("location")
            except httpx.TimeoutException:
                raise StartPageUnreachable(f"cannot load {url}: no answer within {timeout_s:g} s") from None
            except httpx.ConnectError as error:
                raise StartPageUnreachable(f"cannot load {url}: {_connect_reason(error)}") from None
            except httpx.HTTPError as error:
                raise StartPageUnreachable(f"cannot load {url}: {type(error).__name__}: {error}") from None
            if status >= 400:
                raise StartPageUnreachable(f"cannot load {url}: {_where(url, hop) or 'it '}answered HTTP {status}")
            if not (300 <= status < 400 and location):
                return
            hop = str(httpx.URL(hop).join(location))
    raise StartPageUnreachable(f"cannot load {url}: more than {MAX_REDIRECTS} redirects")


def start_failure(traces: list[TwinTrace]) -> str | None:
    """The reason, when every twin failed to open the start page (so the run measured nothing); else None."""
    if not traces or not all(
        t.failure is not None and t.failure.step == 0 and t.failure.kind in START_FAILURES for t in traces
    ):
        return None
    first = traces[0].failure
    assert first is not None  # every twin failed (above)
    return f"cannot load {traces[0].start_url}: no twin could open it ({first.kind}: {first.message})"


def _resolve(url: str, hop: str) -> None:
    parts = browser_url(hop)
    host = parts.hostname.strip("[]")
    try:
        socket.getaddrinfo(host, int(parts.port or 80), proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError, ValueError):
        raise StartPageUnreachable(
            f"cannot load {url}: {_where(url, hop)}the host name '{host}' does not resolve (DNS)"
        ) from None


def _where(url: str, hop: str) -> str:
    return "" if hop == url else f"its redirect to {hop} "


def _connect_reason(error: httpx.ConnectError) -> str:
    text = str(error)
    if "refused" in text.lower():
        return "connection refused (nothing is listening there)"
    return text or "could not connect"
