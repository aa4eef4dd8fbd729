"""A page's price in US dollars, for holding it against a budget stated in dollars (OPeRA's survey; Wang et al.
2025, arXiv 2506.05606).

Reads the dated, cited table shipped beside this module (exchange_rates.json, written by
scripts/make_exchange_rates.py; docs/currencies.md): a fixed table, never live rates, so a decision does not
change with the day it is made and the rationale can say which rate it used. A currency not in the table gives
None: the caller skips what needs dollars and says why, rather than guess. ISO 4217 codes only; reading "£" or
"zł" as a code is the page reader's job.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

RATES_PATH = Path(__file__).with_name("exchange_rates.json")
BASE = "USD"


@dataclass(frozen=True)
class UsdAmount:
    """`amount` of `currency` is `usd` US dollars at `per_usd` units per dollar, dated `date`, from table source
    `source` (None for an amount already in dollars)."""

    usd: float
    amount: float
    currency: str
    per_usd: float
    date: str
    source: str | None

    @property
    def source_label(self) -> str | None:
        """How a rationale names the rate's source ("ECB reference rate", "Saudi Central Bank (SAMA) peg")."""
        return None if self.source is None else _table()["sources"][self.source]["label"]

    def describe(self) -> str:
        """'GBP 40.00 ≈ $53.60 (ECB reference rate of 2026-10-30)'; '$40.00' for dollars."""
        if self.source is None:
            return f"${self.usd:,.2f}"
        return f"{self.currency} {self.amount:,.2f} ≈ ${self.usd:,.2f} ({self.source_label} of {self.date})"


@cache
def _table() -> dict:
    return json.loads(RATES_PATH.read_text(encoding="utf-8"))


def rate_date() -> str:
    """The table's reference date (ISO); a rate from another source carries its own date on the UsdAmount."""
    return _table()["date"]


def known_currencies() -> frozenset[str]:
    """The ISO codes to_usd converts (the base, US dollars, included)."""
    return frozenset(_table()["rates"]) | {BASE}


def to_usd(amount: float, currency: str) -> UsdAmount | None:
    """`amount` in `currency` (an ISO 4217 code, any case) as US dollars, or None for a currency not in the table."""
    if not math.isfinite(amount):
        raise ValueError(f"amount must be a finite number, got {amount!r}")
    code = currency.strip().upper()
    if code == BASE:
        return UsdAmount(
            usd=float(amount), amount=float(amount), currency=BASE, per_usd=1.0, date=rate_date(), source=None
        )
    rate = _table()["rates"].get(code)
    if rate is None:
        return None
    return UsdAmount(
        usd=amount / rate["per_usd"],
        amount=float(amount),
        currency=code,
        per_usd=rate["per_usd"],
        date=rate["date"],
        source=rate["source"],
    )
