"""The demo shop's products: a fixed, hand-written catalogue, so every simulation sees the same shop.

Eight products in four departments, each with options (colour, size, ...), a rating, a review
histogram and a few written reviews: enough for twins to search, compare, choose options, read
reviews and buy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Review:
    author: str
    stars: int
    title: str
    body: str


@dataclass(frozen=True, slots=True)
class Product:
    asin: str  # Amazon-style id, used in /dp/<asin>
    title: str
    brand: str
    department: str
    price: float  # control-variant price, dollars
    rating: float
    review_count: int
    colour: str  # placeholder image colour
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)  # dimension -> choices
    bullets: tuple[str, ...] = ()
    reviews: tuple[Review, ...] = ()
    keywords: tuple[str, ...] = ()  # extra words search should match

    def histogram(self) -> list[tuple[int, int]]:
        """(stars, percent) rows from 5 down to 1, consistent with the average rating."""
        top = max(0, min(90, round((self.rating - 3.0) * 40)))
        rest = 100 - top
        shares = [top, round(rest * 0.55), round(rest * 0.2), round(rest * 0.1)]
        return [(5 - i, share) for i, share in enumerate([*shares, 100 - sum(shares)])]

    def words(self) -> set[str]:
        text = " ".join((self.title, self.brand, self.department, *self.keywords))
        return set(re.findall(r"[a-z0-9]+", text.lower()))


PRODUCTS: tuple[Product, ...] = (
    Product(
        "B0TWIN0001",
        "Trailblazer Men's Running Shoes, Lightweight Breathable Mesh Sneakers",
        "Trailblazer",
        "Shoes",
        59.99,
        4.4,
        2871,
        "#c0392b",
        {"color": ("Red", "Black", "Blue"), "size": ("8", "9", "10", "11", "12")},
        (
            "Breathable knit mesh upper keeps feet cool",
            "Cushioned EVA midsole for long runs",
            "Rubber outsole with grip on wet roads",
        ),
        (
            Review("Dan K.", 5, "Comfortable from day one", "No break-in needed. I run 20 miles a week in them."),
            Review("Priya", 4, "Good value", "Runs half a size small, otherwise great for the price."),
            Review("M. Ortiz", 2, "Sole wore out", "The outsole was smooth after three months."),
        ),
        ("sneakers", "running", "shoe", "trainers", "basketball", "sport", "athletic"),
    ),
    Product(
        "B0TWIN0002",
        "CourtKing Basketball Shoes for Men, High Top Non-Slip Sneakers",
        "CourtKing",
        "Shoes",
        74.50,
        4.2,
        964,
        "#e67e22",
        {"color": ("Red", "White"), "size": ("9", "10", "11", "12")},
        ("High-top collar supports the ankle", "Herringbone traction pattern for indoor courts"),
        (
            Review("Jordan", 5, "Great grip", "Stops on a dime on our gym floor."),
            Review("Sam", 3, "Heavy", "Solid shoe but heavier than I expected."),
        ),
        ("sneakers", "basketball", "shoe", "court", "sport"),
    ),
    Product(
        "B0TWIN0003",
        "Brewly 12-Cup Programmable Coffee Maker with Glass Carafe",
        "Brewly",
        "Kitchen",
        39.99,
        4.5,
        5412,
        "#2c3e50",
        {"color": ("Black", "Stainless")},
        ("Programmable 24-hour timer", "Keeps coffee warm for 2 hours", "Reusable filter included"),
        (
            Review("Helen W.", 5, "Best coffee maker I've owned", "Hot coffee, easy to clean, quiet."),
            Review("Rick", 4, "Does the job", "The carafe drips a little when pouring."),
            Review("Anna", 1, "Stopped working", "Died after 6 weeks. Returned it."),
        ),
        ("coffee", "maker", "machine", "brewer", "kitchen", "appliance"),
    ),
    Product(
        "B0TWIN0004",
        "ChefMate Non-Stick Frying Pan Set, 3 Pieces (8, 10, 12 inch)",
        "ChefMate",
        "Kitchen",
        34.95,
        4.6,
        3120,
        "#7f8c8d",
        {"style": ("3-piece set", "10 inch only")},
        ("PFOA-free non-stick coating", "Oven safe to 450F", "Works on gas, electric and induction"),
        (
            Review("Lou", 5, "Eggs slide right off", "Three months in and still perfectly non-stick."),
            Review("Carmen", 4, "Nice set", "Handles get warm in the oven, use a mitt."),
        ),
        ("pan", "pans", "skillet", "cookware", "kitchen", "frying"),
    ),
    Product(
        "B0TWIN0005",
        "Soundwave Wireless Earbuds, Bluetooth 5.3 with Charging Case, 30h Playtime",
        "Soundwave",
        "Electronics",
        29.99,
        4.3,
        12044,
        "#34495e",
        {"color": ("Black", "White", "Navy")},
        ("Bluetooth 5.3 with stable connection", "30 hours with the charging case", "IPX5 sweat resistant"),
        (
            Review("Tom", 5, "Amazing for the price", "Sound is clear and the battery lasts all week."),
            Review("Grace L.", 3, "Fit is so-so", "They fall out when I run."),
            Review("Wei", 4, "Solid", "Good bass, case feels a bit cheap."),
        ),
        ("earbuds", "headphones", "bluetooth", "wireless", "audio", "earphones"),
    ),
    Product(
        "B0TWIN0006",
        "Voltix USB C Charger 65W, 3-Port Fast Wall Charger",
        "Voltix",
        "Electronics",
        25.99,
        4.7,
        2210,
        "#16a085",
        {"color": ("White", "Black")},
        ("Charges a laptop and a phone at once", "Foldable plug, travel size"),
        (
            Review("Nina", 5, "Charges my laptop fast", "Replaced three chargers with this one."),
            Review("Omar", 4, "Gets warm", "Works well, gets warm under full load."),
        ),
        ("charger", "usb", "cable", "adapter", "laptop", "phone", "electronics"),
    ),
    Product(
        "B0TWIN0007",
        "CloudRest Memory Foam Pillow, Queen Size, Set of 2",
        "CloudRest",
        "Home & Living",
        44.99,
        4.1,
        1830,
        "#8e44ad",
        {"size": ("Queen", "King")},
        ("Shredded memory foam, adjustable loft", "Washable bamboo cover"),
        (
            Review("Beth", 5, "Finally sleeping well", "Took out some foam and it's perfect."),
            Review("Jake", 2, "Smelled at first", "Strong smell for a week; airing out helped."),
        ),
        ("pillow", "pillows", "bedding", "sleep", "home", "bed"),
    ),
    Product(
        "B0TWIN0008",
        "Lumen LED Desk Lamp with Wireless Charger, 5 Brightness Levels",
        "Lumen",
        "Home & Living",
        32.99,
        4.4,
        760,
        "#f1c40f",
        {"color": ("White", "Black")},
        ("Five colour temperatures and brightness levels", "Built-in 10W wireless phone charger"),
        (
            Review("Ivy", 5, "Great for late study", "Soft light, no flicker, charges my phone."),
            Review("Carl", 4, "Nice lamp", "The touch controls are a bit sensitive."),
        ),
        ("lamp", "light", "desk", "office", "home", "led"),
    ),
)

BY_ASIN: dict[str, Product] = {product.asin: product for product in PRODUCTS}
DEPARTMENTS: tuple[str, ...] = tuple(sorted({product.department for product in PRODUCTS}))
PRICE_BANDS: tuple[tuple[str, float, float], ...] = (
    ("Under $30", 0.0, 30.0),
    ("$30 to $50", 30.0, 50.0),
    ("$50 & above", 50.0, 1e9),
)


def search(query: str) -> list[Product]:
    """Products sharing a word with the query, best overlap first; catalogue order breaks ties."""
    wanted = set(re.findall(r"[a-z0-9]+", (query or "").lower()))
    scored = [(len(wanted & product.words()), index, product) for index, product in enumerate(PRODUCTS)]
    return [product for score, _, product in sorted(scored, key=lambda row: (-row[0], row[1])) if score > 0]
