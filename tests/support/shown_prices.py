"""Whether a line of what a twin read (a rationale, a visibility example) shows an amount in a currency, in any of
the ways a page reader may write it: a sign or a code (£ or GBP, € or EUR), either decimal mark, thousands
grouped or not (79.99, 79,99, 1,299.00, 1.299,00). Tests on the shop in pounds and euros ask what was read, not
how the reader spells it."""

from __future__ import annotations

import re

SIGNS = {"£": "GBP", "€": "EUR", "$": "USD"}
_BETWEEN_DIGITS = re.compile(r"(?<=\d)[.,\s\u00a0\u202f'](?=\d)")


def names_currency(line: str, sign: str) -> bool:
    return sign in line or re.search(rf"\b{SIGNS[sign]}\b", line) is not None


def shows(line: str, sign: str, amount: str) -> bool:
    digits = re.sub(r"\D", "", amount)
    grouped_as_one = _BETWEEN_DIGITS.sub("", line)
    return names_currency(line, sign) and re.search(rf"(?<!\d){digits}(?!\d)", grouped_as_one) is not None
