"""Amounts of money in any shop's words: "$1,299.99", "£34.99", "EUR 10,79", "1.299,00 €", "AED 26.00",
"R$ 1.299,90", "₹ 2,499", "1 299 ₽", "12 990 kr".

A shop writes a price with a currency sign or code before or after it, and with its locale's separators. This
module finds such amounts in running text (an amount counts only with a currency marker beside it, so "4.5 out of 5"
or "Size 42" never reads as a price) and leaves the separators to `price-parser` (Zyte's library, BSD-3-Clause),
which tells "1.299,00" (1299.00) from "1,299.00" and "10,79" (10.79). Currencies are ISO 4217 codes; a bare "$" or
"kr" is ambiguous and takes the page's own currency when the page declares one (its structured data or metadata),
else US dollars for "$".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from urllib.parse import urlsplit

from price_parser import Price

# Signs and words shops print, longest first where one starts another ("R$" before "$", "руб." before "р.").
_SIGNS: dict[str, str | None] = {
    "US$": "USD",
    "C$": "CAD",
    "CA$": "CAD",
    "A$": "AUD",
    "AU$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "S$": "SGD",
    "R$": "BRL",
    "MX$": "MXN",
    "$": None,
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "￥": "JPY",
    "₹": "INR",
    "₽": "RUB",
    "₴": "UAH",
    "₸": "KZT",
    "₺": "TRY",
    "₩": "KRW",
    "₫": "VND",
    "₪": "ILS",
    "₱": "PHP",
    "฿": "THB",
    "₦": "NGN",
    "zł": "PLN",
    "Kč": "CZK",
    "Ft": "HUF",
    "lei": "RON",
    "лв": "BGN",
    "kn": "HRK",
    "kr": None,
    "Rs.": "INR",
    "Rs": "INR",
    "руб.": "RUB",
    "руб": "RUB",
    "р.": "RUB",
    "грн": "UAH",
    "тг": "KZT",
    "د.إ": "AED",
    "ر.س": "SAR",
    "S/": "PEN",
    "RM": "MYR",
    "Rp": "IDR",
    "CHF": "CHF",
    "Fr.": "CHF",
    "TL": "TRY",
}
# ISO codes shops print beside amounts. Written in capitals and standing alone, they are not words of the text.
_CODES = (
    "USD",
    "EUR",
    "GBP",
    "AED",
    "SAR",
    "QAR",
    "KWD",
    "BHD",
    "OMR",
    "JOD",
    "EGP",
    "INR",
    "RUB",
    "UAH",
    "KZT",
    "BYN",
    "PLN",
    "CZK",
    "HUF",
    "RON",
    "BGN",
    "HRK",
    "SEK",
    "NOK",
    "DKK",
    "ISK",
    "CHF",
    "TRY",
    "JPY",
    "CNY",
    "RMB",
    "KRW",
    "HKD",
    "TWD",
    "SGD",
    "MYR",
    "IDR",
    "THB",
    "VND",
    "PHP",
    "AUD",
    "NZD",
    "CAD",
    "MXN",
    "BRL",
    "ARS",
    "CLP",
    "COP",
    "PEN",
    "ZAR",
    "NGN",
    "KES",
    "ILS",
    "PKR",
    "BDT",
    "LKR",
)
_KR = {"SEK", "NOK", "DKK", "ISK"}
_DOLLARS = {"USD", "CAD", "AUD", "NZD", "HKD", "SGD", "MXN", "TWD", "ARS", "CLP", "COP"}
_YEN = {"JPY", "CNY"}

_SIGN_RE = "|".join(re.escape(s) for s in sorted(_SIGNS, key=len, reverse=True) if not s[0].isalpha())
# Signs that start with a letter ("kr", "zł", "руб.", "RM") and codes count only as whole words.
_WORD_SIGNS = "|".join(re.escape(s) for s in sorted(_SIGNS, key=len, reverse=True) if s[0].isalpha())
_MARK = rf"(?:{_SIGN_RE}|(?<![^\W\d_])(?:{'|'.join(_CODES)}|{_WORD_SIGNS})(?![^\W\d_]))"
# Digits in groups with one separator between them ("1.299,00", "1'299.50"), or a plain run; then the optional
# cents a separator or a dash leaves ("29,-"). A plain space groups digits only before a trailing sign ("1 299,00 ₽",
# "3 990 Kč"): after a leading one, "$5 100 count" is five dollars. An amount before its sign starts a word: in
# "M-212 150.00€" or "Code 520501927 EUR219.99" the model number or code is no part of it. A sign that touches the
# digits after it starts the next amount: in "Lumens : 115000.0 $48.75" the $ is 48.75's, not 115000's.
_AMOUNT_PARTS = r"(?:[.,]\d{1,2}(?!\d)|,-)?"
_AMOUNT_AFTER_SIGN = rf"\d{{1,3}}(?:[.,'\u00a0\u202f\u2009]\d{{3}})+{_AMOUNT_PARTS}(?!\d)|\d+{_AMOUNT_PARTS}"
_AMOUNT_BEFORE_SIGN = rf"\d{{1,3}}(?:[.,' \u00a0\u202f\u2009]\d{{3}})+{_AMOUNT_PARTS}(?!\d)|\d+{_AMOUNT_PARTS}"
_MONEY = re.compile(
    rf"(?P<before>{_MARK})\s?(?P<a1>{_AMOUNT_AFTER_SIGN})|"
    rf"(?<![^\W_])(?<![^\W\d_]-)(?P<a2>{_AMOUNT_BEFORE_SIGN})\s?(?P<after>{_MARK})(?!\d)"
)
_MARK_CHARS = frozenset("$€£¥￥₹₽₴₸₺₩₫₪₱฿₦") | frozenset("zKFlлkRr.руSCTдгт")


@dataclass(frozen=True, slots=True)
class Money:
    """An amount and its ISO 4217 currency (None when the text does not say which, e.g. a bare "kr")."""

    amount: float
    currency: str | None
    start: int = 0
    end: int = 0


def currency_code(sign: str | None, hint: str | None = None) -> str | None:
    """The ISO code a sign or code stands for; an ambiguous "$" or "kr" takes `hint` when it fits ($ -> any dollar,
    kr -> a krona/krone), else USD for "$"."""
    if not sign:
        return hint
    sign = sign.strip()
    upper = sign.upper()
    if upper in _CODES:
        return "CNY" if upper == "RMB" else upper
    code = _SIGNS.get(sign) or _SIGNS.get(sign.lower())
    if code is not None:
        if code == "JPY" and hint in _YEN:
            return hint
        return code
    if sign == "$":
        return hint if hint in _DOLLARS else "USD"
    if sign == "kr":
        return hint if hint in _KR else None
    return None


# Country-code domains of places whose currency sign is shared ("$", "kr", "¥"): a bare sign on such a shop is its
# own country's money unless the page declares otherwise.
_HOST_CURRENCY = {
    "ca": "CAD",
    "au": "AUD",
    "nz": "NZD",
    "hk": "HKD",
    "sg": "SGD",
    "mx": "MXN",
    "tw": "TWD",
    "ar": "ARS",
    "cl": "CLP",
    "co": "COP",
    "se": "SEK",
    "no": "NOK",
    "dk": "DKK",
    "is": "ISK",
    "jp": "JPY",
    "cn": "CNY",
}


def host_currency(url: str | None) -> str | None:
    """The currency a shop's country-code domain suggests for an ambiguous sign (well.ca: CAD), else None."""
    if not url:
        return None
    host = urlsplit(url).hostname or ""
    return _HOST_CURRENCY.get(host.rsplit(".", 1)[-1])


def might_hold_money(text: str) -> bool:
    """A cheap first test: some digit and some currency mark character or capital code."""
    return any(ch.isdigit() for ch in text) and (
        any(ch in _MARK_CHARS for ch in text) or any(c in text for c in _CODES)
    )


def find_money(text: str, hint: str | None = None) -> list[Money]:
    """Every amount with a currency marker in `text`, in order."""
    if not text or not might_hold_money(text):
        return []
    found = []
    for match in _MONEY.finditer(text):
        digits = match.group("a1") or match.group("a2")
        amount = _amount(digits)
        if amount is None:
            continue
        found.append(
            Money(
                amount, currency_code(match.group("before") or match.group("after"), hint), match.start(), match.end()
            )
        )
    return found


def first_money(text: str, hint: str | None = None) -> Money | None:
    found = find_money(text, hint)
    return found[0] if found else None


def parse_amount(text: str | None) -> float | None:
    """A bare amount as structured data writes it ("119.01", "1299", "1.299,00"), else None."""
    if text is None:
        return None
    return _amount(str(text).strip())


@lru_cache(maxsize=8192)
def _amount(digits: str) -> float | None:
    if digits.endswith(",-"):
        digits = digits[:-2]
    amount = Price.fromstring(digits.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ")).amount
    if amount is None or amount < 0 or amount > Decimal("1e9"):
        return None
    return float(amount)


_WRITTEN_SIGNS = {"USD": "$", "GBP": "£", "EUR": "€", "JPY": "¥", "INR": "₹"}


def format_money(amount: float, currency: str | None, decimals: int | None = 2) -> str:
    """An amount as a shopper reads it: "$12.99", "£34.99", "€119.01", "AED 26.00"; no currency reads as dollars.
    `decimals=None` drops the cents of a whole amount ("$12")."""
    places = 0 if decimals is None and amount == int(amount) else 2 if decimals is None else decimals
    figure = f"{amount:,.{places}f}"
    sign = _WRITTEN_SIGNS.get(currency or "USD")
    return f"{sign}{figure}" if sign else f"{currency} {figure}"
