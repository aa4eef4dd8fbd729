"""Which hosts the service may fetch from on a caller's behalf (pages of an experiment, where twins browse).

A URL is allowed when its host is named in the list (`shop.example.com`, or `*.example.com` for its subdomains)
or every address it resolves to lies in a listed network (`127.0.0.0/8`, `10.1.2.3`, `::1`). Anything else,
and any scheme but http(s), is refused, so a caller cannot make the service reach its own network (cloud
metadata, databases, admin ports). The service's default admits loopback only: local shops and the demo.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK = "localhost,127.0.0.0/8,::1"


@dataclass(frozen=True)
class HostAllowList:
    names: frozenset[str]
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]

    @classmethod
    def parse(cls, text: str) -> "HostAllowList":
        """Comma-separated host names, `*.domain` wildcards, IP addresses and CIDR networks; ValueError names a bad one."""
        names, networks = set(), []
        for entry in (e.strip().lower() for e in text.split(",")):
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                label = entry.removeprefix("*.")
                if not label or any(c in label for c in "/:@ ") or label.startswith("."):
                    raise ValueError(f"'{entry}' is neither a host name, a *.domain, an IP address nor a network") from None
                names.add(entry)
        return cls(frozenset(names), tuple(networks))

    def _named(self, host: str) -> bool:
        return host in self.names or any(n.startswith("*.") and host.endswith(n[1:]) for n in self.names)

    def allows(self, url: str) -> bool:
        """True when the URL is http(s) and its host is listed or resolves only into listed networks."""
        try:
            parts = urlsplit(url)
            host = (parts.hostname or "").rstrip(".").lower()
            port = parts.port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not host:
            return False
        if self._named(host):
            return True
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(host, port or 80, proto=socket.IPPROTO_TCP)}
        except (OSError, UnicodeError):
            return False
        return bool(addresses) and all(
            any(ipaddress.ip_address(a.split("%")[0]) in network for network in self.networks) for a in addresses)
