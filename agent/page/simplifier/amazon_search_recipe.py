"""The Amazon search results recipe: the result list, its refinements (filters), sort and pagination.

One page type per module, so each recipe can be read and changed on its own; the page frame (nav bar, cart side
bar) comes from amazon_page_frame.py. Naming conventions and selector order: see amazon_recipes.py.
"""

from __future__ import annotations

from agent.page.simplifier.amazon_page_frame import AMAZON_URL, CART_SIDE_BAR, NAV_BAR
from agent.page.simplifier.recipes import Recipe, Rule

RESULT_TITLE = ("h2 a span", "h2 span", "h2", "[data-cy=title-recipe] a", "a.a-text-normal")

SEARCH_RESULT = Rule(
    ('div[data-component-type="s-search-result"]', "div.s-result-item[data-asin]"),
    name="{text|attr:data-asin}",
    many=True,
    css_class="search-result",
    text_from=RESULT_TITLE,
    children=(
        Rule(("img.s-image", "img"), name="product_image", kind="image", text_from=("@attr:alt",)),
        Rule(
            ("h5 span", "div.s-title-instructions-style .a-row span.a-size-base-plus"),
            kind="text",
            css_class="product-brand",
        ),
        Rule(
            ("h2 a", "[data-cy=title-recipe] a", "a.a-text-normal", "h2"),
            name="product_name",
            kind="click",
            tag="a",
            require_text=True,
        ),
        Rule(("span.a-icon-alt",), kind="text", css_class="product-rating"),
        Rule(
            ("span.a-size-base.s-underline-text", "a[href*=customerReviews] span"),
            kind="text",
            css_class="product-rating-count",
            text_format="{} reviews",
        ),
        Rule(
            (
                "span.a-price:not(.a-text-price) > span.a-offscreen",
                "span.a-price > span.a-offscreen",
                "span.a-price",
                "span.a-color-price",
            ),
            name="product_price",
            kind="click",
            tag="span",
            css_class="product-price",
            price=True,
            require_text=True,
        ),
        Rule(
            ("span.a-price.a-text-price[data-a-strike] > span.a-offscreen",),
            kind="text",
            css_class="product-list-price",
            text_format="List: {}",
            price=True,
        ),
        Rule(
            ("div[data-cy=delivery-recipe]", "div.a-row.a-size-base.a-color-secondary.s-align-children-center"),
            kind="text",
            tag="div",
            css_class="product-delivery",
            text_limit=160,
        ),
        # What a shopper weighs besides the price: the ad label, badges and deals, coupons, low stock.
        Rule(
            (
                ".s-label-popover-default",
                ".puis-label-popover-default",
                ".puis-sponsored-label-text",
                ".s-sponsored-label-text",
            ),
            kind="text",
            css_class="sponsored-label",
            text_limit=40,
        ),
        Rule(
            ("span.a-badge-text", ".a-badge-label-inner"),
            kind="text",
            css_class="badge",
            many=True,
            limit=3,
            text_limit=60,
        ),
        Rule(
            (".s-coupon-unclipped", "[data-component-type=s-coupon-component]"),
            kind="text",
            css_class="coupon",
            text_limit=80,
        ),
        Rule(
            ("span[aria-label*='left in stock']", "div.a-row.a-size-base.a-color-secondary span.a-color-price"),
            kind="text",
            css_class="availability",
            text_limit=80,
        ),
        Rule(
            ("button[name='submit.addToCart']", "input[name='submit.addToCart']", ".s-add-to-cart button"),
            name="add_to_cart",
            kind="click",
            tag="button",
            text_from=("@label", "@self"),
            text_default="Add to cart",
        ),
    ),
)

REFINEMENT_GROUP = Rule(
    ("ul[aria-labelledby]",),
    name="{label|attr:aria-labelledby}",
    many=True,
    caption_from=("@label",),
    children=(
        Rule(("#low-price", "input[name=low-price]"), name="low_price", kind="input"),
        Rule(("#high-price", "input[name=high-price]"), name="high_price", kind="input"),
        Rule(
            ("li:has(#low-price) input[type=submit]", "li:has(input[name=low-price]) .a-button-input"),
            name="go",
            kind="click",
            tag="button",
            text_default="Go",
        ),
        Rule(
            ("li",),
            name="{label|text}",
            kind="click",
            many=True,
            limit=60,
            exclude=("input[type=text]",),
            text_from=("@label", "@self"),
        ),
    ),
)

SEARCH_RECIPE = Recipe(
    name="amazon_search",
    page_type="search_results",
    url_pattern=AMAZON_URL + r"/s(?:[/?]|$)",
    landmarks=('div[data-component-type="s-search-result"]', "div.s-main-slot"),
    rules=(
        NAV_BAR,
        Rule(
            ("span[data-component-type=s-result-info-bar] .s-breadcrumb", "div.s-breadcrumb", "#s-result-count"),
            kind="text",
            tag="div",
            css_class="result-info",
        ),
        Rule(("#s-result-sort-select", "select[name=s]"), name="search_results.sort", kind="select"),
        Rule(
            ("#s-refinements", "#filters", "#s-refinements-container"),
            name="refinements",
            css_class="refinements",
            children=(REFINEMENT_GROUP,),
        ),
        Rule(
            ("div.s-main-slot", "div.s-search-results", "#search"),
            name="search_results",
            css_class="search-results",
            children=(SEARCH_RESULT,),
        ),
        Rule(
            ("span.s-pagination-strip", ".s-pagination-container", "ul.a-pagination"),
            name="pagination",
            children=(Rule((".s-pagination-item", "li"), name="{text}", kind="click", many=True),),
        ),
        CART_SIDE_BAR,
    ),
)
