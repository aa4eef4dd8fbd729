"""The demo shop's cart, kept in a cookie: every browser context (every twin) has its own cart, and the
server holds no state, so simulations running side by side never see each other's items.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from service.demo_shop.catalog import BY_ASIN, Product

COOKIE = "twinshop_cart"
MAX_LINES = 20
MAX_QUANTITY = 10


@dataclass(frozen=True, slots=True)
class CartLine:
    asin: str
    options: tuple[tuple[str, str], ...]  # (dimension, choice), in the product's dimension order
    quantity: int

    @property
    def key(self) -> str:
        """Stable id of the line: the product and its chosen options."""
        return self.asin + "".join(f"~{value}" for _, value in self.options)

    @property
    def product(self) -> Product:
        return BY_ASIN[self.asin]


def read_cart(cookie: str | None) -> list[CartLine]:
    """Decode the cookie; anything malformed or naming an unknown product is dropped, never an error."""
    if not cookie:
        return []
    try:
        rows = json.loads(base64.urlsafe_b64decode(cookie.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return []
    lines: list[CartLine] = []
    for row in rows if isinstance(rows, list) else []:
        try:
            asin, options, quantity = row["asin"], row["options"], int(row["quantity"])
            lines.append(CartLine(str(asin), tuple((str(k), str(v)) for k, v in options), quantity))
        except (KeyError, TypeError, ValueError):
            continue
    return [line for line in lines if line.asin in BY_ASIN and 1 <= line.quantity <= MAX_QUANTITY][:MAX_LINES]


def write_cart(lines: list[CartLine]) -> str:
    rows = [
        {"asin": line.asin, "options": [list(pair) for pair in line.options], "quantity": line.quantity}
        for line in lines
    ]
    return base64.urlsafe_b64encode(json.dumps(rows, separators=(",", ":")).encode()).decode()


def add_line(lines: list[CartLine], asin: str, options: dict[str, str], quantity: int) -> list[CartLine]:
    """Add (or top up) a line; unknown option values fall back to the product's first choice."""
    product = BY_ASIN[asin]
    chosen = tuple(
        (dim, options[dim] if options.get(dim) in values else values[0]) for dim, values in product.options.items()
    )
    new = CartLine(asin, chosen, max(1, min(quantity, MAX_QUANTITY)))
    for index, line in enumerate(lines):
        if line.key == new.key:
            merged = CartLine(asin, chosen, min(line.quantity + new.quantity, MAX_QUANTITY))
            return [*lines[:index], merged, *lines[index + 1 :]]
    return [*lines, new][-MAX_LINES:]


def change_line(lines: list[CartLine], key: str, operation: str) -> list[CartLine]:
    """increment / decrement / delete one line; decrementing the last unit removes it."""
    changed: list[CartLine] = []
    for line in lines:
        if line.key != key:
            changed.append(line)
        elif operation == "increment":
            changed.append(CartLine(line.asin, line.options, min(line.quantity + 1, MAX_QUANTITY)))
        elif operation == "decrement" and line.quantity > 1:
            changed.append(CartLine(line.asin, line.options, line.quantity - 1))
    return changed
