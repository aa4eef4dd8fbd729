"""Which hosts the service may fetch from on a caller's behalf (pages of an experiment, where twins browse).

A URL is judged on the host a browser would load, parsed by the WHATWG URL standard (ada-url), never by
`urllib`: `http://a\\@b/` is host `a` to Chromium and `b` to `urlsplit`, and `0x7f.1` is 127.0.0.1. The same
judgement is made by the pre-checks (API, CLI) and by the browser for every request it makes (redirects too).

A URL is allowed when its host is named in the list (`shop.example.com`, or `*.example.com` for its subdomains)
or every address it resolves to lies in a listed network (`127.0.0.0/8`, `10.1.2.3`, `::1`), or, with the
`public` entry, is a public address. Anything else, any scheme but http(s), a user name or password in the URL,
and a URL the standard cannot parse are refused, so a caller cannot make the service reach its own network
(cloud metadata, databases, admin ports). Local use admits loopback; a shared service admits public hosts only.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

import ada_url

LOOPBACK = "localhost,127.0.0.0/8,::1"
# What JSON Schema can say of such a URL: an http: or https: scheme as a browser reads it (leading spaces and
# controls skipped, any case, tabs and newlines anywhere dropped); the rest is judged by `browser_url`.
_SKIPPED = "[\\t\\n\\r]*"
HTTP_URL_PATTERN = (
    "^[\\x00-\\x20]*" + _SKIPPED.join(f"[{c.lower()}{c.upper()}]" for c in "http") + f"{_SKIPPED}(?:[sS]{_SKIPPED})?:"
)
PUBLIC = "public"  # every globally routable address: no loopback, private, link-local, CGNAT, multicast, reserved


class UrlRefused(ValueError):
    """The URL is not one a twin may load (unparsable, not http(s), carries credentials); the message says why."""


def browser_url(url: str) -> ada_url.URL:
    """The URL as a browser reads it (tabs and newlines dropped, `\\` as `/`, hosts lower-cased and IPv4 forms
    normalised); UrlRefused when the browser would not load it as an http(s) page."""
    try:
        parsed = ada_url.URL(url)
    except (ValueError, TypeError):
        raise UrlRefused(f"'{url}' is not a URL a browser can parse") from None
    if parsed.protocol not in ("http:", "https:"):
        raise UrlRefused(f"'{url}' is a {parsed.protocol or 'relative'} address; only http:// and https:// are browsed")
    if parsed.username or parsed.password:
        raise UrlRefused(f"'{url}' carries a user name or password; send the URL without them")
    if not parsed.hostname:
        raise UrlRefused(f"'{url}' names no host")
    return parsed


def canonical(url: str) -> str:
    """The serialised URL a browser would request (what our own HTTP client fetches too)."""
    return browser_url(url).href


def _is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


@dataclass(frozen=True)
class HostAllowList:
    names: frozenset[str]
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]
    public: bool = False

    @classmethod
    def parse(cls, text: str) -> HostAllowList:
        """Comma-separated host names, `*.domain` wildcards, IP addresses, CIDR networks and `public`;
        ValueError names a bad one."""
        names, networks, public = set(), [], False
        for entry in (e.strip().lower() for e in text.split(",")):
            if not entry:
                continue
            if entry == PUBLIC:
                public = True
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                label = entry.removeprefix("*.")
                if not label or any(c in label for c in "/:@ \\") or label.startswith("."):
                    raise ValueError(
                        f"'{entry}' is neither a host name, a *.domain, an IP address, a network nor 'public'"
                    ) from None
                names.add(entry.rstrip("."))
        return cls(frozenset(names), tuple(networks), public)

    def _named(self, host: str) -> bool:
        return host in self.names or any(n.startswith("*.") and host.endswith(n[1:]) for n in self.names)

    def _address_allowed(self, text: str) -> bool:
        address = ipaddress.ip_address(text.split("%")[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks) or (self.public and _is_public(address))

    def allows(self, url: str) -> bool:
        """True when a browser would load the URL over http(s) from a listed host (or one that resolves only into
        listed networks)."""
        verdict = self.allows_without_lookup(url)
        return verdict if verdict is not None else self._resolves_into_list(url)

    def allows_without_lookup(self, url: str) -> bool | None:
        """The verdict when the URL alone decides it (a refused URL, an IP address, a listed name); None when only
        resolving the name can (agent/browser/request_guard.py then resolves it off the event loop)."""
        try:
            parsed = browser_url(url)
        except UrlRefused:
            return False
        host = parsed.hostname.strip("[]").rstrip(".")
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return True if self._named(host) else None
        return self._address_allowed(host)

    def _resolves_into_list(self, url: str) -> bool:
        parsed = browser_url(url)
        host = parsed.hostname.strip("[]").rstrip(".")
        port = int(parsed.port) if parsed.port else (443 if parsed.protocol == "https:" else 80)
        try:
            addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)}
        except (OSError, UnicodeError):
            return False
        return bool(addresses) and all(self._address_allowed(a) for a in addresses)
