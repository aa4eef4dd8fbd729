"""Amounts of money in any shop's words (agent/page/money.py): the sign or code tells the currency, the locale's
separators the amount, and a number without a currency mark is no price."""

from __future__ import annotations

import pytest

from agent.page.money import currency_code, find_money, first_money


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("EUR 10,79", 10.79, "EUR"),
        ("1.299,00 €", 1299.0, "EUR"),
        ("AED 26.00", 26.0, "AED"),
        ("£34.99", 34.99, "GBP"),
        ("R$ 1.299,90", 1299.9, "BRL"),
        ("₹ 2,499", 2499.0, "INR"),
        ("$1,299.99", 1299.99, "USD"),
        ("1 299,00 ₽", 1299.0, "RUB"),
        ("44 890 тг.", 44890.0, "KZT"),
        ("3 990 Kč", 3990.0, "CZK"),
        ("CHF 1'299.50", 1299.5, "CHF"),
        ("Preis: 29,95 EUR inkl. MwSt.", 29.95, "EUR"),
        ("29,-€", 29.0, "EUR"),
        ("49,99 zł", 49.99, "PLN"),
        ("ر.س 129", 129.0, "SAR"),
    ],
)
def test_amounts_and_currencies_of_many_locales(text, amount, currency):
    money = first_money(text)
    assert money is not None and (money.amount, money.currency) == (amount, currency)


@pytest.mark.parametrize(
    "text", ["4.5 out of 5 stars 1,234 ratings", "Size 42", "Mrs. 5", "Art.-Nr. 2800395267", "in 3 colours, 2 sizes"]
)
def test_numbers_without_a_currency_are_not_money(text):
    assert find_money(text) == []


def test_a_leading_sign_does_not_group_digits_across_a_space():
    """ "$5 100 count" is five dollars; a trailing sign groups a space ("1 299 ₽" is 1299)."""
    assert [(m.amount, m.currency) for m in find_money("from $5 100 count")] == [(5.0, "USD")]


def test_every_amount_in_order_with_where_it_stands():
    text = "List: $16.24 $12.99"
    found = find_money(text)
    assert [m.amount for m in found] == [16.24, 12.99]
    assert text[found[1].start : found[1].end] == "$12.99"


def test_an_ambiguous_sign_takes_the_pages_declared_currency():
    assert first_money("$25", hint="CAD").currency == "CAD"
    assert first_money("$25", hint="EUR").currency == "USD"  # a euro page's "$" is still a dollar
    assert first_money("1.299 kr", hint="SEK").currency == "SEK"
    assert first_money("1.299 kr").currency is None  # a krona or a krone: the page does not say which
    assert currency_code("Lei") == "RON" and currency_code("€") == "EUR"


def test_amounts_written_back_in_their_currency():
    from agent.page.money import format_money

    assert format_money(12.99, "USD") == "$12.99" and format_money(12.99, None) == "$12.99"
    assert format_money(34.99, "GBP") == "£34.99" and format_money(1299.0, "EUR") == "€1,299.00"
    assert format_money(26.0, "AED") == "AED 26.00" and format_money(40.0, "GBP", decimals=None) == "£40"


def test_a_sign_that_touches_the_next_amount_belongs_to_it():
    """A specification's bare number before a price ("Lumens (Initial) : 115000.0 $48.75 ea", a row of a listing read
    as one text) is no amount; a trailing sign followed by a space still ends the amount before it."""
    assert [(m.amount, m.currency) for m in find_money("Lumens (Initial) : 115000.0 $48.75 ea")] == [(48.75, "USD")]
    assert [m.amount for m in find_money("29,99 € 19,99 €")] == [29.99, 19.99]
    assert [m.amount for m in find_money("$7.99$7.19")] == [7.99, 7.19]
