"""The test shop's script (scripts/oscar_shop -> tests/support/oscar_shop): a second install reuses the venv and
the database, `start` serves Oscar on a free loopback port and prints its URL, a variant changes the catalogue
of that instance only, `--currency EUR` serves the euro catalogue, and `stop` ends the server it started."""

from __future__ import annotations

import importlib.util
import runpy
import subprocess
import sys

import httpx
import pytest

from tests.support.oscar_shop import install
from tests.support.oscar_shop.install import PROJECT, REPO, VENV
from tests.support.oscar_shop.server import CURRENCIES

pytestmark = [pytest.mark.integration, pytest.mark.real_shop]


def script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tests.support.oscar_shop", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_install_is_idempotent_and_oscar_never_enters_twinsims_venv(oscar_shop_installed):
    assert install() == {"venv": 0.0, "build": 0.0}
    assert "venv reused, build reused" in script("install").stdout
    assert list(VENV.glob("lib/python*/site-packages/oscar"))
    assert importlib.util.find_spec("oscar") is None and importlib.util.find_spec("django") is None


def test_start_prints_a_url_that_serves_the_shop_and_stop_ends_it(oscar_shop_installed):
    started = script("start", "--name", "test-script", "--variant", "sale", "--currency", "EUR")
    assert started.returncode == 0, started.stderr
    url = started.stdout.strip().splitlines()[-1]
    try:
        page = httpx.get(url + "catalogue/trail-running-shoes_1/", timeout=10)
        assert page.status_code == 200 and "Trail Running Shoes" in page.text
        # the euro catalogue's price (94,95 €) less 25%, on this instance only, in the catalogue's locale's format
        assert "71,21\u00a0€" in page.text and "£" not in page.text
        assert script("start", "--name", "test-script", "--variant", "no-such-variant").returncode == 1
        refused = script("start", "--name", "test-script", "--currency", "JPY")
        assert refused.returncode == 2 and "invalid choice: 'JPY'" in refused.stderr
    finally:
        stopped = script("stop", "--name", "test-script")
    assert "stopped" in stopped.stdout or "no running instance" in stopped.stdout
    with pytest.raises(httpx.HTTPError):
        httpx.get(url, timeout=2)


def test_twinsim_holds_no_code_for_this_shop():
    """Twins read Oscar with the generic simplifier and brain: nothing in twinsim names the shop or its markup."""
    words = ("oscar", "django", "product_pod", "price_color", "shopsite")
    found = [
        f"{path.relative_to(REPO)}: {word}"
        for package in ("agent", "service", "personas")
        for path in sorted((REPO / package).rglob("*.py"))
        for word in words
        if word in path.read_text().lower()
    ]
    assert not found


def test_every_currency_the_script_offers_has_a_price_for_every_product():
    """The script's currencies are the catalogue's (the project runs in Oscar's interpreter, so they are written
    twice), and each price list beyond the built one prices every product."""
    data = runpy.run_path(str(PROJECT / "shopsite" / "catalogue_data.py"))
    assert data["CURRENCIES"] == CURRENCIES and CURRENCIES[0] == "GBP"
    skus = {row[0] for row in data["PRODUCTS"]} | {data["TSHIRT"][0]}
    assert {currency: set(prices) for currency, prices in data["PRICE_LISTS"].items()} == {"EUR": skus}
