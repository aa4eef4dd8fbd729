"""What a running test shop recorded, read from its own SQLite database: the products in its visitors' baskets
and the orders placed (Oscar's own tables). Tests check twins' effects on the shop here, not only in the twins'
traces."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass

from tests.support.oscar_shop.server import ShopInstance

_BASKET_LINES = (
    "SELECT p.title, l.quantity FROM basket_line l JOIN catalogue_product p ON p.id = l.product_id ORDER BY l.id"
)


def basket_lines(instance: ShopInstance) -> list[tuple[str, int]]:
    """(product title, quantity) of every line in every basket the shop holds."""
    with closing(_connect(instance)) as db:
        return [(title, quantity) for title, quantity in db.execute(_BASKET_LINES)]


@dataclass(frozen=True)
class PlacedOrder:
    number: str
    guest_email: str
    total: str
    products: tuple[str, ...]
    city: str


def orders(instance: ShopInstance) -> list[PlacedOrder]:
    """Every order the shop holds: its number, the guest's email, the total, what was bought and where it goes."""
    with closing(_connect(instance)) as db:
        rows = db.execute(
            "SELECT o.id, o.number, o.guest_email, o.total_incl_tax, a.line4 FROM order_order o "
            "LEFT JOIN order_shippingaddress a ON a.id = o.shipping_address_id ORDER BY o.id"
        ).fetchall()
        return [
            PlacedOrder(
                number=number,
                guest_email=email or "",
                total=str(total),
                city=city or "",
                products=tuple(
                    t for (t,) in db.execute("SELECT title FROM order_line WHERE order_id = ? ORDER BY id", (order_id,))
                ),
            )
            for order_id, number, email, total, city in rows
        ]


def orders_placed(instance: ShopInstance) -> int:
    with closing(_connect(instance)) as db:
        return db.execute("SELECT COUNT(*) FROM order_order").fetchone()[0]


def _connect(instance: ShopInstance) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{instance.folder / 'shop.sqlite3'}?mode=ro", uri=True, timeout=30)
