"""The Amazon cart recipe: the active items with their controls (quantity, delete, save for later), the
subtotal and checkout button, and the saved-for-later list.

One page type per module, so each recipe can be read and changed on its own; the page frame (nav bar) comes from
amazon_page_frame.py. Naming conventions and selector order: see amazon_recipes.py.
"""

from __future__ import annotations

from agent.page.simplifier.amazon_page_frame import AMAZON_URL, NAV_BAR
from agent.page.simplifier.recipes import Recipe, Rule

CART_ITEM_TITLE = (
    ".sc-product-title .a-truncate-full",
    "span.a-truncate-full",
    ".sc-product-title",
    ".sc-grid-item-product-title",
    "a.sc-product-link",
)

CART_ITEM_CONTROLS = (
    Rule(("input[type=checkbox]",), name="checkbox", kind="click", tag="span", role="checkbox", text_default="Select"),
    Rule(
        ("a.sc-product-link", ".sc-product-title a", "a[href*='/gp/product/']", "a[href*='/dp/']"),
        name="product_detail",
        kind="click",
        tag="a",
        require_text=True,
        text_from=(".a-truncate-full", "@self"),
    ),
    Rule(
        (
            ".sc-badge-price-to-pay span.a-offscreen",
            ".sc-item-price-block span.a-offscreen",
            "span.sc-product-price",
            "span.sc-price",
            "span.a-price span.a-offscreen",
        ),
        kind="text",
        css_class="product-price",
        price=True,
    ),
    Rule((".sc-product-availability",), kind="text", css_class="availability"),
    Rule(("select[name=quantity]", "select.sc-update-quantity-select"), name="quantity_selector", kind="select"),
    Rule(
        ("[data-a-selector=decrement]", "button[aria-label^='Decrease quantity']"),
        name="decrease_quantity_by_one",
        kind="click",
        tag="button",
        text_from=("@self", "@label"),
        text_default="-",
    ),
    Rule(("[data-a-selector=value]",), kind="text", css_class="quantity", text_format="Qty: {}"),
    Rule(
        ("[data-a-selector=increment]", "button[aria-label^='Increase quantity']"),
        name="increase_quantity_by_one",
        kind="click",
        tag="button",
        text_from=("@self", "@label"),
        text_default="+",
    ),
    Rule(
        (
            'input[data-action="delete"]',
            'span[data-action="delete"] input',
            "input[name^='submit.delete']",
            "input[value=Delete]",
        ),
        name="delete",
        kind="click",
        tag="button",
        text_from=("@label",),
        text_default="Delete",
    ),
    Rule(
        ('span[data-action="save-for-later"] input', "input[name^='submit.save-for-later']"),
        name="save_for_later",
        kind="click",
        tag="button",
        text_from=("@label",),
        text_default="Save for later",
    ),
    Rule(
        ("input[name^='submit.move-to-cart']", 'span[data-action="move-to-cart"] input'),
        name="move_to_cart",
        kind="click",
        tag="button",
        text_from=("@label",),
        text_default="Move to cart",
    ),
)

CART_ITEM = Rule(
    ("div.sc-list-item[data-asin]", "div[data-asin][data-itemid]", "div[data-asin]"),
    name="{text|attr:data-asin}",
    many=True,
    limit=100,
    css_class="cart-item",
    text_from=CART_ITEM_TITLE,
    children=CART_ITEM_CONTROLS,
)

CART_RECIPE = Recipe(
    name="amazon_cart",
    page_type="cart",
    url_pattern=AMAZON_URL + r"/(?:gp/cart|cart)",
    landmarks=("#sc-active-cart", "input[name=proceedToRetailCheckout]", "#sc-buy-box"),
    rules=(
        NAV_BAR,
        Rule(
            ("#sc-active-cart", "#activeCartViewForm"),
            css_class="active-cart",
            children=(
                Rule(("h1", "h2"), kind="text", tag="h1"),
                Rule(
                    ("#deselect-all", "#select-all", "a[data-action=deselect-all]", "a[data-action=select-all]"),
                    name="cart_header.{text}",
                    kind="click",
                    tag="a",
                ),
                Rule(
                    ('div[data-name="Active Items"]', "#sc-active-items", ".sc-list-body"),
                    name="active_item_list",
                    virtual_if_missing=True,
                    children=(CART_ITEM,),
                ),
                Rule(("#sc-subtotal-label-activecart",), kind="text", css_class="subtotal-label"),
                Rule(("#sc-subtotal-amount-activecart",), kind="text", css_class="subtotal", price=True),
            ),
        ),
        Rule(
            ("#sc-buy-box", "#gutterCartViewForm"),
            css_class="cart-buy-box",
            virtual_if_missing=True,
            children=(
                Rule(("#sc-subtotal-label-buybox",), kind="text", css_class="subtotal-label"),
                Rule(("#sc-subtotal-amount-buybox",), kind="text", css_class="subtotal", price=True),
                Rule(
                    (
                        'input[name="proceedToRetailCheckout"]',
                        "#sc-buy-box-ptc-button input",
                        "[name=proceedToRetailCheckout]",
                        "#sc-buy-box-ptc-button",
                    ),
                    name="check_out",
                    kind="click",
                    tag="button",
                    text_from=("@label", "@self"),
                    text_default="Proceed to checkout",
                ),
            ),
        ),
        Rule(
            ("#sc-saved-cart",),
            css_class="saved-cart",
            children=(
                Rule(("h1", "h2"), kind="text", tag="h2"),
                Rule(
                    ('div[data-name="Saved Items"]', ".sc-list-body"),
                    name="saved_item_list",
                    virtual_if_missing=True,
                    children=(CART_ITEM,),
                ),
            ),
        ),
    ),
)
