"""The test shop's catalogue: made up by the twinsim team as test data (no real shop's products, prices or
reviews). Small on purpose: four departments, eleven products with prices and stock, one product out of stock
(the best-rated backpack, so twins are tempted by it), one with size variants (child products, one size sold
out), one with a colour option, and reviews: a few written ones, and for nine products many more from
templated texts (BULK_REVIEWS), so best sellers show hundreds of ratings, as on an established shop.

The shop sells in pounds (PRODUCTS' prices, GBP). Its euro catalogue (PRICE_LISTS["EUR"]) is the same products
with the owner's own euro prices, not a conversion: shops set prices per market, rounded to that market's habits.
"""

CATEGORIES = ("Footwear", "Clothing", "Bags", "Camping")

# sku, title, category, price (GBP), stock, description, reviews [(score 1-5, title, body, name)]
PRODUCTS = (
    (
        "TRL-01",
        "Trail Running Shoes",
        "Footwear",
        "79.99",
        25,
        "Light trail shoes with a grippy outsole and a breathable mesh upper.",
        [
            (5, "Great grip", "Held well on wet rock and mud.", "Priya"),
            (4, "Comfortable", "Comfortable from the first run; a little narrow.", "Tom"),
        ],
    ),
    (
        "HKB-02",
        "Waterproof Hiking Boots",
        "Footwear",
        "119.00",
        12,
        "Leather hiking boots with a waterproof membrane and ankle support.",
        [(4, "Dry feet", "Kept my feet dry through a rainy weekend.", "Alex")],
    ),
    (
        "SCK-03",
        "Merino Wool Socks (3 pack)",
        "Footwear",
        "18.50",
        60,
        "Three pairs of cushioned merino socks for walking and running.",
        [
            (5, "Warm and soft", "No blisters on a 20 mile walk.", "Eve"),
            (4, "Good socks", "Comfortable; one pair wore thin after a year.", "Dan"),
        ],
    ),
    (
        "JKT-05",
        "Packable Rain Jacket",
        "Clothing",
        "89.00",
        8,
        "A light waterproof jacket that packs into its own pocket.",
        [(3, "Fine", "Keeps the rain out, runs warm on climbs.", "Sam")],
    ),
    (
        "FLC-06",
        "Recycled Fleece Pullover",
        "Clothing",
        "45.00",
        14,
        "A warm fleece made from recycled bottles.",
        [(4, "Cosy", "Warm for its weight, pills a little.", "Noor")],
    ),
    (
        "BPK-07",
        "Canvas Backpack 25 L",
        "Bags",
        "64.00",
        0,
        "A waxed canvas backpack with a padded laptop sleeve.",
        [
            (5, "Love it", "Sturdy, good looking and holds a lot.", "Mia"),
            (5, "Best bag I've owned", "Two years of daily use and still like new.", "Jon"),
        ],
    ),
    (
        "DFL-08",
        "Travel Duffel Bag 40 L",
        "Bags",
        "54.00",
        15,
        "A water-resistant duffel with backpack straps.",
        [(4, "Roomy", "Fits a weekend's kit easily.", "Lee")],
    ),
    (
        "BTL-09",
        "Insulated Water Bottle 750 ml",
        "Camping",
        "24.95",
        40,
        "Keeps drinks cold for 24 hours or hot for 12.",
        [
            (5, "Really insulated", "Ice still there the next morning.", "Ana"),
            (4, "Good bottle", "Works well; the lid is a bit stiff.", "Raj"),
        ],
    ),
    (
        "MUG-10",
        "Enamel Camping Mug",
        "Camping",
        "12.99",
        30,
        "A classic enamel mug for the campfire.",
        [
            (5, "Classic", "Exactly what I wanted for camping trips.", "Ola"),
            (3, "Chipped", "Nice mug, but it chipped on the second trip.", "Ben"),
        ],
    ),
    (
        "LMP-11",
        "Rechargeable Headlamp 300 lm",
        "Camping",
        "29.99",
        20,
        "A USB-C rechargeable headlamp with a red light mode.",
        [(4, "Bright", "Bright enough for night runs.", "Kim")],
    ),
)

# Ratings beyond the written reviews above, as an established shop's best sellers have them: (count, average
# stars) per sku. The builder makes these reviews from short templated texts (made-up test data, like the rest);
# the product page shows the written ones first. The T-shirt has none, the fleece only its one written review.
BULK_REVIEWS = {
    "TRL-01": (180, 4.5),
    "HKB-02": (95, 4.3),
    "SCK-03": (240, 4.7),
    "JKT-05": (60, 3.9),
    "BPK-07": (310, 4.8),
    "DFL-08": (75, 4.4),
    "BTL-09": (420, 4.6),
    "MUG-10": (50, 4.1),
    "LMP-11": (130, 4.4),
}
BULK_TEXTS = (
    ("Does the job", "Works as described."),
    ("Happy with it", "Good quality for the price."),
    ("As expected", "Arrived quickly and matches the description."),
    ("Would buy again", "Second one I've bought."),
)

# A product with size variants: a parent product and one child per size, each with its own stock.
TSHIRT = (
    "TEE-04",
    "Organic Cotton T-shirt",
    "Clothing",
    "22.00",
    "A soft organic cotton T-shirt, cut for everyday wear.",
    (("S", 10), ("M", 0), ("L", 7)),
)

# A product option shown on the product page (an optional drop-down), and the products that offer it.
COLOUR_OPTION = ("Colour", ("Black", "Sage", "Sand"), ("BTL-09", "MUG-10"))

# The euro catalogue's prices, by sku (the T-shirt's sizes share TEE-04's); made up like the rest.
PRICE_LISTS = {
    "EUR": {
        "TRL-01": "94.95",
        "HKB-02": "139.00",
        "SCK-03": "21.90",
        "TEE-04": "25.95",
        "JKT-05": "104.00",
        "FLC-06": "52.50",
        "BPK-07": "74.90",
        "DFL-08": "62.95",
        "BTL-09": "29.95",
        "MUG-10": "14.99",
        "LMP-11": "34.95",
    },
}
CURRENCIES = ("GBP", *PRICE_LISTS)  # the first is the catalogue as built

# Where the shop ships: one country, so Oscar's guest checkout asks for none (the twins' TEST address is a US one).
COUNTRY = ("US", "USA", "840", "United States", "United States of America")
