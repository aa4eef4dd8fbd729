"""One URL judgement: a simulation's start URL, an experiment's live_url and page url are read as Chromium reads
them (WHATWG URL standard, agent/allowed_hosts.browser_url), the reading the browser's request guard judges. Where
Python's urllib reads them otherwise (backslashes, missing slashes, bad hosts and ports, credentials), the
pre-checks used to take URLs the browser would not load and refuse URLs it would."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from agent.allowed_hosts import HTTP_URL_PATTERN
from agent.experiments.spec import PageSpec, VariantSpec
from agent.simulation.config import SimulationConfig

# (url, whether a browser loads it as an http(s) page with a host and no credentials)
TRICKY = [
    ("http:\\\\shop.example.com\\start", True),  # backslashes are slashes to a browser; urllib sees no host
    ("http:shop.example.com/", True),  # special schemes need no slashes
    ("\x01 http://shop.example.com/", True),  # leading controls and spaces are dropped
    ("ht\ttp://shop.example.com/", True),  # tabs and newlines anywhere are dropped
    ("HtTpS://SHOP.example.com/", True),  # mixed case
    ("http://%73hop.example.com/", True),  # an encoded host decodes
    ("http://[::1]:8100/", True),  # IPv6
    ("http://0x7f.1/", True),  # hex, decimal and octal IPv4 forms are addresses
    ("http://2130706433/", True),
    ("http://0177.0.0.1/", True),
    ("http://127.0.0.3:8000\\@127.0.0.2:8000/start", True),  # host 127.0.0.3 (the allow list judges the host)
    ("http://user:pw@shop.example.com/", False),  # credentials: refused, as by the browser's guard
    ("http://127.0.0.3:80@127.0.0.2/", False),
    ("http://exa mple.com/", False),  # forbidden host characters, which urllib takes
    ("http://ex%00ample.com/", False),
    ("http://%zz/", False),
    ("http://999.0.0.1/", False),  # an IPv4 address out of range
    ("http://1.2.3.4.5/", False),
    ("http://[::1/", False),  # unparsable
    ("http://[v1.x]/", False),
    ("http://shop.example.com:99999/", False),  # a port out of range, or not a number
    ("http://shop.example.com:80a/", False),
    ("//shop.example.com/", False),  # relative
    ("ftp://shop.example.com/", False),
    ("file:///etc/passwd", False),
    ("javascript:alert(1)", False),
    ("http://", False),
]


def accepted(make) -> bool:
    try:
        make()
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("url,loads", TRICKY)
def test_a_simulation_start_url_is_judged_as_the_browser_reads_it(url, loads):
    assert accepted(lambda: SimulationConfig(url=url, persona_ids=["p1"])) is loads


@pytest.mark.parametrize("url,loads", TRICKY)
def test_an_experiment_live_url_and_page_url_are_judged_alike(url, loads):
    assert accepted(lambda: VariantSpec(name="A", live_url=url)) is loads
    assert accepted(lambda: PageSpec(url=url)) is loads


@pytest.mark.parametrize("url,loads", TRICKY)
def test_the_published_pattern_never_refuses_a_url_the_service_takes(url, loads):
    """The OpenAPI schema states the scheme as a browser reads it: a URL the service accepts always matches."""
    if loads:
        assert re.search(HTTP_URL_PATTERN, url), url


def test_the_refusal_says_why():
    with pytest.raises(ValidationError, match="user name or password"):
        SimulationConfig(url="http://user:pw@shop.example.com/", persona_ids=["p1"])
    with pytest.raises(ValidationError, match="only http:// and https://"):
        VariantSpec(name="A", live_url="ftp://shop.example.com/")
