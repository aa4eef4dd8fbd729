"""Writes agent/sample_pages/*.html: realistic pages in OPeRA's simplified-HTML form.

Markup follows the real excerpts and name patterns in the OPeRA README (Wang et al. 2025, arXiv 2506.05606):
`name=` semantic ids on interactive elements, slugs of lower-case text with non-alphanumerics as `_`.
The products are invented. Run: .venv/bin/python scripts/make_sample_pages.py
"""

from __future__ import annotations

import random
import re
from html import escape
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "agent" / "sample_pages"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


NAV = """<div name="nav_bar" role="navigation" aria-label="Primary"><div name="nav_bar.homepage">Homepage</div>
<div class="nav-left"><span>Deliver to</span><span>Boston 02115</span></div>
<form role="search"><select name="nav_bar.search_drop_down_list" title="Search in"><option>All \
Departments</option><option>Electronics</option><option>Home &amp; Kitchen</option></select>
<input name="nav_bar.search_input" value="{query}" type="text" role="searchbox" aria-label="Search Amazon">
<input name="nav_bar.search_button" type="submit" value="Go"></form>
<div name="nav_bar.account">Hello, sign in Account &amp; Lists</div><div name="nav_bar.orders">Returns &amp; \
Orders</div>
<div name="nav_bar.cart_button" aria-label="{cart} items in cart">Cart {cart}</div></div>
<div name="nav_bar.suggested_terms" class="suggestions">{suggestions}</div>"""

CART_SIDE_BAR = """<div name="cart_side_bar" class="ewc"><div>Subtotal</div><span \
class="product-price">${subtotal}</span>
<div name="cart_side_bar.go_to_cart">Go to Cart</div><ul name="cart_side_bar.product_list">{items}</ul></div>"""

SEARCH_PRODUCTS = [
    ("Anker USB C Cable, 6ft, Nylon Braided USB A to Type C Charger Cord", 12.99, 4.7, 48211, "Anker"),
    ("Amazon Basics USB-C to USB-A 2.0 Fast Charging Cable, 6 Foot, Black", 7.49, 4.6, 129033, "Amazon Basics"),
    ("Belkin BoostCharge USB-C to USB-C Cable, 6.6ft, USB-IF Certified", 19.99, 4.7, 8712, "Belkin"),
    ("UGREEN USB C to USB C Cable 100W, 10ft Braided Fast Charging Cord", 13.99, 4.6, 30544, "UGREEN"),
    ("JSAUX USB C Cable [2-Pack 6.6ft], USB A to Type C Fast Charging", 9.99, 4.5, 61237, "JSAUX"),
    ("Apple USB-C Woven Charge Cable (1 m)", 19.00, 4.8, 21490, "Apple"),
    ("Anker USB C to USB C Cable, 240W 6ft Braided, 2-Pack", 16.99, 4.7, 15230, "Anker"),
    ("AINOPE USB C Cable 10ft 3-Pack, Premium Nylon Braided Type C Charger", 11.99, 4.6, 40876, "AINOPE"),
    ("Samsung Original 25W USB-C to USB-C Cable, 3.3ft, White", 8.95, 4.6, 9921, "Samsung"),
    ("Cable Matters 2-Pack Braided USB C to USB C Cable 6.6 ft with 100W Charging", 14.99, 4.5, 7755, "Cable Matters"),
    ("etguuds USB C Cable 3ft 2-Pack, USB A to Type C Charger Cable Fast Charging", 7.99, 4.6, 22019, "etguuds"),
    ("INIU USB C Cable, 3.1A Fast Charging 6.6ft, Nylon Braided", 6.99, 4.5, 35002, "INIU"),
    ("Anker Nano Charger 20W with 5ft USB-C Cable Bundle", 21.99, 4.7, 5120, "Anker"),
    ("Syncwire USB C Cable 10ft, Extra Long Braided Charger Cord", 10.99, 4.5, 18990, "Syncwire"),
    ("USB C to Lightning Cable 6ft, Apple MFi Certified iPhone Charger Cord", 9.49, 4.4, 27711, "Generic"),
    ("Baseus 100W USB C Cable 6.6ft 2-Pack with LED Display", 15.99, 4.6, 11203, "Baseus"),
    ("Amazon Basics Double Braided Nylon USB-C to USB-C 2.0 Cable, 10 Foot", 11.49, 4.6, 40112, "Amazon Basics"),
    ("Nimaso USB C Cable 6ft 2-Pack, Fast Charging Type C Cable", 8.99, 4.6, 9874, "Nimaso"),
    ("RAVPower USB C Cable 6.6ft 60W PD Fast Charging, 2-Pack", 12.49, 4.5, 6511, "RAVPower"),
    ("Native Union Belt Cable USB-C to USB-C 4ft, Braided with Leather Strap", 29.99, 4.6, 3320, "Native Union"),
    ("Sabrent USB C Cable 3ft, USB 3.2 Gen 2 10Gbps Data Transfer", 9.99, 4.5, 2310, "Sabrent"),
    ("Powerline III USB C Cable 10ft, Ultra Durable, by Anker", 17.99, 4.7, 12004, "Anker"),
    ("Tech Armor USB C Cable 3-Pack 3ft, 6ft, 10ft", 13.49, 4.4, 4410, "Tech Armor"),
    ("ESR USB C Cable 6.6ft 2-Pack 60W Braided Fast Charging", 9.59, 4.6, 7602, "ESR"),
]

FILLER = (
    '<div class="a-row a-size-base a-color-secondary"><span>FREE delivery <span class="a-text-bold">{day}</span>'
    " on $35 of items shipped by Amazon</span><span>Or fastest delivery {fast}</span></div>"
    '<div class="a-row"><span class="a-size-small">{bought}+ bought in past month</span></div>'
    '<div class="s-product-details"><span>Connector Type: USB Type C</span><span>Cable Type: {ctype}</span>'
    "<span>Compatible Devices: Laptop, Smartphone, Tablet</span><span>Color: {color}</span></div>"
    '<div class="a-section a-spacing-none"><span class="a-size-base">Climate Pledge Friendly uses sustainability '
    "certifications to highlight products that support our commitment to help preserve the natural world.</span></div>"
)


def product_block(rng: random.Random, title: str, price: float, rating: float, reviews: int, sponsored: bool) -> str:
    s = slug(title)
    badge = '<span class="puis-label-popover">Sponsored</span>' if sponsored else ""
    filler = FILLER.format(
        day=rng.choice(["Tue, Dec 2", "Wed, Dec 3", "Thu, Dec 4"]),
        fast=rng.choice(["Tomorrow, Nov 23", "Mon, Nov 24"]),
        bought=rng.choice([100, 500, 1000, 5000]),
        ctype=rng.choice(["USB-A to USB-C", "USB-C to USB-C"]),
        color=rng.choice(["Black", "White", "Gray"]),
    )
    stars = "4_stars_and_above" if rating >= 4.6 else "search_results"
    return (
        f'<div name="search_results.{s}" class="s-result-item" data-component-type="s-search-result">{badge}'
        f'<img name="search_results.{s}.product_image" alt="{escape(title)}" src="/images/{s[:20]}.jpg">'
        f'<h2><a name="search_results.{s}.product_name" href="/dp/{s[:10].upper()}">{escape(title)}</a></h2>'
        f'<div class="a-row"><span aria-label="{rating} out of 5 stars">{rating} {rating} out of 5 stars</span>'
        f'<span name="search_results.{s}.reviews" aria-label="{reviews:,} ratings">({reviews:,})</span></div>'
        f'<a name="search_results.{s}.product_price" class="product-price"><span>${price:.2f}</span></a>'
        f'<span class="a-text-price">List: ${price * 1.25:.2f}</span>{filler}'
        f'<button name="search_results.{s}.add_to_cart">Add to cart</button>'
        + (
            f'<div name="{stars}.{s}.product_title" hidden-label="top rated">Top rated</div>'
            if stars != "search_results"
            else ""
        )
        + "</div>\n"
    )


def search_results_page() -> str:
    rng = random.Random(7)
    suggestions = "".join(
        f'<div name="nav_bar.suggested_terms.{slug(t)}">{t}</div>'
        for t in ("usb c cable 10ft", "usb c cable braided", "usb c to usb c cable", "usb c cable fast charging")
    )
    refinements = []
    for group, values in (
        ("brand", ["Anker", "Amazon Basics", "Belkin", "UGREEN", "Apple", "Samsung"]),
        ("cable_length", ["Up to 3 ft", "3 to 5.9 ft", "6 to 9.9 ft", "10 ft & above"]),
        ("customer_reviews", ["4 Stars & Up"]),
        ("price", ["Up to $10", "$10 to $15", "$15 to $25", "$25 & above"]),
        ("connector_type", ["USB Type C", "USB Type A", "Lightning"]),
    ):
        items = "".join(f'<li name="refinements.{group}.{slug(v)}"><span>{escape(v)}</span></li>' for v in values)
        refinements.append(
            f'<div name="refinements.{group}"><span '
            f'class="a-text-bold">{group.replace("_", " ").title()}</span><ul>{items}</ul></div>'
        )
    products = "".join(product_block(rng, *p[:4], sponsored=i in (0, 5, 12)) for i, p in enumerate(SEARCH_PRODUCTS))
    # Real result pages repeat their grid below the fold ("More results"); a second grid brings the page to ~100 KB.
    more = "".join(
        product_block(rng, f"{p[0]} (Renewed)", round(p[1] * 0.8, 2), p[2], p[3] // 10, False) for p in SEARCH_PRODUCTS
    )
    pagination = (
        '<div name="pagination" role="navigation"><span name="pagination.previous" aria-disabled="true">Previous</span>'
        + "".join(f'<a name="pagination.page_{i}">{i}</a>' for i in range(1, 4))
        + '<a name="pagination.next_page">Next</a></div>'
    )
    cart = CART_SIDE_BAR.format(
        subtotal="12.99",
        items=(
            '<li name="cart_side_bar.product_list.anker_usb_c_cable_6ft"><span>Anker USB C Cable, 6ft</span>'
            '<span class="product-price">$12.99</span>'
            '<button name="cart_side_bar.product_list.anker_usb_c_cable_6ft.decrease_quantity_by_one">-</button>'
            "<span>1</span><button "
            'name="cart_side_bar.product_list.anker_usb_c_cable_6ft.increase_quantity_by_one">+</button></li>'
        ),
    )
    return (
        "<html><head><title>Amazon.com : usb c cable</title></head><body>"
        + NAV.format(query="usb c cable", cart=1, suggestions=suggestions)
        + '<div name="refinements_toolbar"><span>1-48 of over 10,000 results for "usb c cable"</span>'
        '<select name="refinements_toolbar.sort_by" aria-label="Sort by"><option>Featured</option>'
        "<option>Price: Low to High</option><option>Avg. Customer Review</option></select>"
        '<div name="refinements_toolbar.price">Price</div></div>'
        + '<div name="refinements" class="s-refinements">'
        + "".join(refinements)
        + "</div>"
        + '<div class="s-main-slot">'
        + products
        + '<div class="a-section"><h2>More results</h2></div>'
        + more
        + "</div>"
        + pagination
        + cart
        + "</body></html>"
    )


def product_page() -> str:
    title = "Anker USB C Cable, 6ft, Nylon Braided USB A to Type C Charger Cord"
    lengths = ["3 ft", "6 ft", "10 ft", "3 ft + 6 ft"]
    colors = [("Black", 12.99), ("Gray", 12.99), ("Red", 13.49), ("Blue", 13.49)]
    length_items = "".join(
        f'<li name="product_options.size.button_list.{slug(length)}" role="radio">{length}</li>' for length in lengths
    )
    color_items = "".join(
        f'<li name="product_options.color.button_list.{slug(c)}_{slug(f"{p:.2f}")}_{slug(f"{p:.2f}")}" '
        f'role="radio">{c} ${p:.2f} ${p:.2f}</li>'
        for c, p in colors
    )
    reviews = "".join(
        f'<div class="review"><span>{stars}.0 out of 5 stars</span><span class="a-text-bold">{escape(head)}</span>'
        f"<span>Reviewed in the United States on {date}</span><span>Size: 6 ft Color: Black Verified Purchase</span>"
        f'<div>{escape(body)}</div><span name="reviews.helpful_{i}" role="button">Helpful</span></div>'
        for i, (stars, head, date, body) in enumerate(
            [
                (
                    5,
                    "Durable and charges fast",
                    "October 2, 2026",
                    "Had it for a year, the braiding has held up and it fast charges my Pixel.",
                ),
                (
                    4,
                    "Good cable, a bit stiff",
                    "September 14, 2026",
                    "Works with my laptop at 60W. The braid makes it stiff when new.",
                ),
                (
                    2,
                    "Stopped working after 3 months",
                    "August 30, 2026",
                    "The connector got loose and it only charges at an angle now.",
                ),
                (
                    5,
                    "Best value for the length",
                    "August 1, 2026",
                    "6 ft is perfect for the bedside, cheaper than the store brand.",
                ),
            ]
        )
    )
    also = "".join(
        f'<li name="similar_items.{slug(p[0])}.product_name"><span>{escape(p[0])}</span>'
        f'<span class="product-price">${p[1]:.2f}</span></li>'
        for p in SEARCH_PRODUCTS[1:9]
    )
    return (
        f"<html><head><title>Amazon.com: {escape(title)}</title></head><body>"
        + NAV.format(query="usb c cable", cart=0, suggestions="")
        + '<div name="breadcrumbs"><a name="breadcrumbs.electronics">Electronics</a> › '
        '<a name="breadcrumbs.cables">Cables</a></div>'
        + f'<div id="centerCol"><h1 id="productTitle">{escape(title)}</h1><a name="brand_store">Visit the Anker '
        "Store</a>"
        + '<div name="product_rating"><a name="reviews.star_rating" aria-label="4.7 out of 5 stars">4.7 4.7 out of 5 '
        "stars</a>"
        '<span name="reviews" aria-label="48,211 Reviews">(48,211)</span></div>'
        '<span class="product-price">Price: $12.99</span><span>List Price: $15.99</span>'
        '<div name="product_options" class="product-options"><div name="product_options.size"><div><span>Size:</span>'
        '<span>6 ft</span></div><ul name="product_options.size.button_list" '
        f'role="radiogroup">{length_items}</ul></div>'
        '<div name="product_options.color"><div><span>Color:</span><span>Black</span></div>'
        f'<ul name="product_options.color.button_list" role="radiogroup">{color_items}</ul></div></div>'
        '<div class="feature-bullets"><ul><li>The Anker Advantage: join the 55 million+ powered by our leading '
        "technology.</li>"
        "<li>Durable: a nylon braided exterior and aramid fiber core withstand 12,000+ bends.</li>"
        "<li>High-speed charging: charge compatible devices at full speed.</li></ul></div></div>"
        '<div name="buybox" id="buybox"><div name="buybox.one_time_purchase"><span>One-time purchase:</span>'
        '<span class="product-price">$12.99</span><div name="buybox.one_time_purchase.purchase_form">'
        '<button name="buybox.one_time_purchase.purchase_form.add_to_cart">Add to Cart</button></div></div>'
        '<div name="buybox.subscribe_save"><span>Subscribe &amp; Save: $11.69</span>'
        '<button name="buybox.subscribe_save.subscribe">Subscribe Now</button></div>'
        "<span>FREE delivery Tuesday, December 2. Order within 5 hrs 2 mins</span><span>In Stock</span>"
        '<div name="buybox.purchase_form"><div name="buybox.purchase_form.quantity_selector"><label>Quantity:</label>'
        "<select><option>1</option><option>2</option><option>3</option></select></div>"
        '<input name="buybox.purchase_form.add_to_cart" type="submit" value="Add to Cart">'
        '<input name="buybox.purchase_form.buy_now" type="submit" value="Buy Now"></div>'
        '<div name="buybox.add_to_list">Add to List</div></div>'
        + f'<div name="similar_items" class="carousel"><h2>Products related to this item</h2><ul>{also}</ul>'
        '<a name="similar_items.carousel_next" aria-label="Next page">Next</a></div>'
        + '<div id="reviewsMedley"><h2>Customer reviews</h2><span>4.7 out of 5</span>'
        '<a name="reviews.filter.5_star" aria-label="5 star 78%">5 star 78%</a>'
        '<a name="reviews.filter.1_star" aria-label="1 star 3%">1 star 3%</a>'
        '<div name="reviews.review_images"><img name="reviews.review_images.image_1" alt="Customer image">'
        '<span name="reviews.popover.review_images.next" role="button">Next image</span>'
        '<span name="reviews.popover.close" role="button">Close</span></div>'
        + reviews
        + '<a name="reviews.see_all_reviews">See more reviews</a></div></body></html>'
    )


def cart_page() -> str:
    items = [
        ("Anker USB C Cable, 6ft, Nylon Braided", 12.99, 1),
        ("Amazon Basics AA Batteries, 48 Pack", 15.99, 2),
        ("Dr. Bronner's Pure-Castile Liquid Soap, Peppermint, 32 oz", 17.99, 1),
    ]
    rows = "".join(
        f'<div name="active_item_list.{slug(t)}" class="sc-list-item"><input '
        f'name="active_item_list.{slug(t)}.checkbox" '
        f'type="checkbox" checked aria-label="Select {escape(t)}"><a '
        f'name="active_item_list.{slug(t)}.product_detail">{escape(t)}</a>'
        f'<span class="product-price">${p:.2f}</span><span>In Stock</span>'
        f'<div name="active_item_list.{slug(t)}.quantity"><button '
        f'name="active_item_list.{slug(t)}.decrease_quantity_by_one">-</button>'
        f'<span>{q}</span><button name="active_item_list.{slug(t)}.increase_quantity_by_one">+</button></div>'
        f'<span name="active_item_list.{slug(t)}.delete" role="button">Delete</span>'
        f'<span name="active_item_list.{slug(t)}.save_for_later" role="button">Save for later</span></div>'
        for t, p, q in items
    )
    subtotal = sum(p * q for _, p, q in items)
    return (
        "<html><head><title>Amazon.com Shopping Cart</title></head><body>"
        + NAV.format(query="", cart=4, suggestions="")
        + '<div id="sc-active-cart"><h1>Shopping Cart</h1><span name="deselect_all_items" role="button">Deselect all '
        "items</span>"
        + rows
        + f'<div>Subtotal (4 items): <span class="product-price">${subtotal:.2f}</span></div></div>'
        f'<div name="check_out_box"><span>Subtotal (4 items): ${subtotal:.2f}</span>'
        '<input name="check_out" type="submit" value="Proceed to checkout"></div>'
        '<div name="saved_for_later"><h2>Saved for later (1 item)</h2><a '
        'name="saved_for_later.usb_wall_charger.product_detail">'
        'USB Wall Charger, 20W</a><span name="saved_for_later.usb_wall_charger.move_to_cart" role="button">Move to '
        "cart</span></div>"
        "</body></html>"
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, html in (
        ("search_results.html", search_results_page()),
        ("product_page.html", product_page()),
        ("cart.html", cart_page()),
    ):
        (OUT / name).write_text(html)
        print(f"{name}: {len(html.encode()):,} bytes")


if __name__ == "__main__":
    main()
