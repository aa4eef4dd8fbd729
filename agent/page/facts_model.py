"""The facts a shopper weighs, as data: per product its price (and currency), list price, rating, reviews,
delivery, stock, sponsored label, badges and options, each with where it was read; per page its products and the
one it is about. agent/page/facts.py reads them; both brains decide from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Availability = Literal["in_stock", "low_stock", "unavailable"]


@dataclass(frozen=True, slots=True)
class ProductFacts:
    """One product in view. None means the page does not say."""

    title: str
    name: str | None = None  # the candidate that opens it (a product link); None for the page's own product
    brand: str | None = None
    price: float | None = None
    list_price: float | None = None  # the struck-through "List Price" / "Was" price, when shown
    rating: float | None = None  # stars out of 5
    review_count: int | None = None  # 0 when the page says there are no reviews
    delivery_free: bool | None = None
    delivery_fee: float | None = None  # dollars, when a paid delivery is shown
    delivery_days: int | None = None  # days until it arrives when the page says it relatively (today 0, tomorrow 1)
    availability: Availability | None = None
    stock_left: int | None = None  # "Only 3 left in stock" -> 3
    sponsored: bool = False
    badges: tuple[str, ...] = ()  # best_seller, amazons_choice, limited_time_deal, deal, coupon
    option_count: int = 0  # choices offered for this product (size, colour ...)
    buy_names: tuple[str, ...] = ()  # candidates that buy it (add to cart, buy now)
    currency: str | None = None  # ISO 4217 code of price, list price and delivery fee; None when not shown
    sources: tuple[tuple[str, str], ...] = ()  # (fact, where it was read): structured_data, meta or visible
    disagreements: tuple[str, ...] = ()  # where the page shows one value and declares another

    def source_of(self, fact: str) -> str | None:
        """Where `fact` was read: "structured_data" (JSON-LD, microdata, RDFa), "meta" (OpenGraph) or "visible"."""
        return next((source for name, source in self.sources if name == fact), None)

    @property
    def discount(self) -> float | None:
        """Share off the list price (0.2 = 20% off), when both prices are shown and the price is lower."""
        if self.price is None or not self.list_price or self.list_price <= 0:
            return None
        return max(0.0, (self.list_price - self.price) / self.list_price)


@dataclass(frozen=True, slots=True)
class PageFacts:
    """The facts of one page. `focus` indexes the product the page is about (a product page), else None."""

    products: tuple[ProductFacts, ...] = ()
    focus: int | None = None
    option_count: int = 0  # option choices on the page (product_options.*)
    reviews_shown: bool = False  # the page shows ratings or reviews for some product
    search_box: bool = False
    can_buy: bool = False  # some purchase element for a product that is not unavailable
    notes: tuple[str, ...] = field(default=())  # what could not be read, and where readings disagree, for audits
    currency: str | None = None  # the page's currency: its product's, else the one most of its prices are in

    @property
    def focus_product(self) -> ProductFacts | None:
        return self.products[self.focus] if self.focus is not None else None

    def alternatives(self) -> tuple[ProductFacts, ...]:
        """Every product in view but the one the page is about."""
        return tuple(p for i, p in enumerate(self.products) if i != self.focus)


NO_FACTS = PageFacts()
