"""The Amazon product detail recipe: title, price, review summary, options (size, colour ...), buy box,
carousels and customer reviews.

One page type per module, so each recipe can be read and changed on its own; the page frame (nav bar, cart side
bar) comes from amazon_page_frame.py. Naming conventions and selector order: see amazon_recipes.py.
"""

from __future__ import annotations

from agent.page.simplifier.amazon_page_frame import AMAZON_URL, CART_SIDE_BAR, NAV_BAR
from agent.page.simplifier.recipes import Recipe, Rule

PRICE_TEXT = r"^\s*Price:\s*"

PRICE_SELECTORS = (
    "#corePrice_feature_div .priceToPay span.a-offscreen",
    "#corePriceDisplay_desktop_feature_div .priceToPay span.a-offscreen",
    "#apex_desktop .priceToPay span.a-offscreen",
    "#corePrice_feature_div .apexPriceToPay span.a-offscreen",
    "#apex_desktop .apexPriceToPay span.a-offscreen",
    # Newer pages may leave .a-offscreen blank and render the price in split spans.
    "#corePrice_feature_div .priceToPay",
    "#corePriceDisplay_desktop_feature_div .priceToPay",
    "#apex_desktop .priceToPay",
    "#apex_desktop .apexPriceToPay",
    "span.a-price.priceToPay",
    "#corePrice_feature_div span.a-offscreen",
    "#corePriceDisplay_desktop_feature_div span.a-offscreen",
    "#apex_desktop span.a-offscreen",
    "#priceblock_ourprice",
    "#priceblock_dealprice",
    "#priceblock_saleprice",
    "#corePrice_feature_div span.a-price",
    "#apex_desktop span.a-price",
    "#price_inside_buybox",
    "#newBuyBoxPrice",
    "#kindle-price",
    "#price",
)

LIST_PRICE_SELECTORS = (  # the struck-through "List Price" / "Was" / "Typical price"
    "#corePriceDisplay_desktop_feature_div .basisPrice span.a-offscreen",
    "#corePrice_feature_div span.a-text-price[data-a-strike] span.a-offscreen",
    "#corePriceDisplay_desktop_feature_div span.a-text-price[data-a-strike] span.a-offscreen",
    "#apex_desktop .basisPrice span.a-offscreen",
    "#apex_desktop span.a-text-price[data-a-strike] span.a-offscreen",
    "#corePrice_desktop span.a-text-price span.a-offscreen",
    "#listPrice",
    ".priceBlockStrikePriceString",
)

REVIEW_SUMMARY = Rule(
    ("#averageCustomerReviews", "#averageCustomerReviews_feature_div", "#acrPopover"),
    css_class="review",
    virtual_if_missing=True,
    children=(
        Rule(
            ("#acrPopover", "i.a-icon-star span.a-icon-alt", "span.a-icon-alt"),
            name="reviews.star_rating",
            kind="click",
            text_from=("@self", "@attr:title"),
        ),
        Rule(
            (
                "#acrCustomerReviewText",
                "#acrCustomerReviewLink",
                "a[href*='#customerReviews']",
                "a[href*=customerReviews]",
            ),
            name="reviews",
            kind="click",
            keep_attrs=("aria-label",),
        ),
    ),
)

PRODUCT_OPTIONS = Rule(
    (
        "#twister",
        "#twister_feature_div",
        "#twisterContainer",
        "#inline-twister-expander-content",
        "#softlinesTwister_feature_div",
    ),
    name="product_options",
    css_class="product-options",
    children=(
        # Dimensions: #variation_color_name (classic), #inline-twister-row-size_name (2023+), and the
        # few without the _name suffix (#variation_item_package_quantity).
        Rule(
            ('div[id^="variation_"]', 'div[id^="inline-twister-row-"]'),
            name="{id}",
            id_pattern=r"(?:variation_|inline-twister-row-)(.+?)(?:_name)?$",
            many=True,
            caption_from=(
                "label.a-form-label",
                ".inline-twister-dim-title .a-color-secondary",
                "span.selection",
                "span.inline-twister-dim-title-value",
                '[id^="inline-twister-expanded-dimension-text-"]',
                "span.a-dropdown-prompt",
            ),
            children=(
                Rule(
                    ("ul",),
                    name="button_list",
                    tag="ul",
                    role="radiogroup",
                    children=(
                        Rule(
                            ("li",),
                            name="{text|label}",
                            kind="click",
                            many=True,
                            limit=60,
                            strip=r"^\s*Click to select\s*",
                        ),
                    ),
                ),
                Rule(
                    ("select",),
                    name="drop_down_list",
                    tag="ul",
                    role="listbox",
                    children=(
                        Rule(('option:not([value="-1"])',), name="{text}", kind="click", tag="li", many=True, limit=60),
                    ),
                ),
            ),
        ),
    ),
)

BUYBOX = Rule(
    ("#buybox", "#desktop_buybox", "#buyBoxAccordion", "#rightCol"),
    name="buybox",
    css_class="buybox",
    virtual_if_missing=True,
    children=(
        # Some layouts put the stock line in the centre column, under the title ("Available from these sellers."):
        # it is still the product's stock.
        Rule(
            ("#availability", "#outOfStock"),
            kind="text",
            tag="div",
            css_class="availability",
            page_fallback=("#availability", "#outOfStock"),
        ),
        Rule(
            ("#mir-layout-DELIVERY_BLOCK", "#deliveryBlockMessage", "#delivery-message"),
            kind="text",
            tag="div",
            css_class="product-delivery",
            text_limit=200,
        ),
        # The purchase controls are looked for in the form, then in the buy box container, and only then by
        # their own ids anywhere on the page: layouts move them out of #buybox, and the name must not
        # depend on the wrapper they sit in (a twin that cannot find Add to Cart cannot buy).
        Rule(
            ("form#addToCart", "#addToCart", "form[id*=addToCart]"),
            name="purchase_form",
            virtual_if_missing=True,
            children=(
                Rule(
                    ("select#quantity", "select[name=quantity]"),
                    name="quantity_selector",
                    kind="select",
                    keep_attrs=("aria-label",),
                    page_fallback=("select#quantity",),
                ),
                Rule(
                    (
                        "#add-to-cart-button",
                        "input[name='submit.add-to-cart']",
                        "#add-to-cart-button-ubb",
                        "input[name='submit.addToCart']",
                    ),
                    name="add_to_cart",
                    kind="click",
                    tag="button",
                    text_from=("@label", "@self"),
                    text_default="Add to Cart",
                    page_fallback=("#add-to-cart-button", "#add-to-cart-button-ubb"),
                ),
                Rule(
                    ("#buy-now-button", "input[name='submit.buy-now']"),
                    name="buy_now",
                    kind="click",
                    tag="button",
                    text_from=("@label", "@self"),
                    text_default="Buy Now",
                    page_fallback=("#buy-now-button",),
                ),
            ),
        ),
        Rule(
            ("#buybox-see-all-buying-choices a", "#buybox-see-all-buying-choices"),
            name="see_all_buying_options",
            kind="click",
            tag="a",
        ),
    ),
)

CAROUSEL_ITEM_TITLE = (
    ".p13n-sc-truncate-desktop-type2",
    ".a-truncate-full",
    "div[class*=truncate]",
    "span.a-size-base",
    "a[title]",
    "img[alt]",
)

CAROUSEL = Rule(
    ("div.a-carousel-container",),
    name="{text}",
    many=True,
    limit=6,
    text_from=("h2", ".a-carousel-heading", "h3"),
    caption_from=("h2", ".a-carousel-heading"),
    children=(
        Rule(
            ("li.a-carousel-card",),
            name="{text}",
            many=True,
            limit=10,
            text_from=(*CAROUSEL_ITEM_TITLE[:-2], "@label"),
            children=(
                Rule(
                    ("a",),
                    name="product_title",
                    kind="click",
                    tag="a",
                    require_text=True,
                    text_from=(*CAROUSEL_ITEM_TITLE[:-2], "@self"),
                ),
                Rule(("span.a-icon-alt",), kind="text", css_class="product-rating"),
                Rule(
                    ("span.a-price span.a-offscreen", ".p13n-sc-price", "span.a-color-price"),
                    kind="text",
                    css_class="product-price",
                    price=True,
                ),
            ),
        ),
    ),
)

CUSTOMER_REVIEWS = Rule(
    ("#customerReviews", "#reviewsMedley", "#cm-cr-dp-review-list"),
    name="customer_reviews",
    css_class="customer-reviews",
    children=(
        Rule(("[data-hook=rating-out-of-text]",), kind="text", css_class="product-rating"),
        Rule(("[data-hook=total-review-count]",), kind="text", css_class="product-rating-count"),
        Rule(
            ("#histogramTable tr", "#histogramTable li"),
            name="histogram.{text}",
            kind="click",
            many=True,
            name_from=("td:first-child", "@self"),
        ),
        Rule(
            ("a[data-hook=see-all-reviews-link-foot]", "a[href*='/product-reviews/']"),
            name="see_all_reviews",
            kind="click",
            tag="a",
        ),
        Rule(
            ("div[data-hook=review]", "li[data-hook=review]"),
            kind="text",
            tag="div",
            css_class="review",
            many=True,
            limit=8,
            text_limit=500,
        ),
    ),
)

PRODUCT_RECIPE = Recipe(
    name="amazon_product",
    page_type="product",
    url_pattern=AMAZON_URL + r"/(?:.*/)?(?:dp|gp/product|gp/aw/d)/",
    landmarks=("#productTitle", "#dp #title", "#add-to-cart-button"),
    rules=(
        NAV_BAR,
        Rule(
            ("#wayfinding-breadcrumbs_feature_div", "#wayfinding-breadcrumbs_container"),
            name="breadcrumbs",
            children=(Rule(("li a",), name="{text}", kind="click", many=True),),
        ),
        Rule(
            ("#productTitle", "#title", "#btAsinTitle"),
            name="product_title",
            kind="text",
            tag="h1",
            css_class="product-title",
        ),
        Rule(("#bylineInfo",), kind="text", css_class="product-byline"),
        REVIEW_SUMMARY,
        Rule(
            PRICE_SELECTORS,
            name="product_price",
            kind="text",
            css_class="product-price",
            text_format="Price: {}",
            price=True,
            strip=PRICE_TEXT,
        ),
        Rule(
            LIST_PRICE_SELECTORS, kind="text", css_class="product-list-price", text_format="List Price: {}", price=True
        ),
        Rule(("#acBadge_feature_div", ".ac-badge-wrapper"), kind="text", css_class="badge", text_limit=60),
        Rule(("#zeitgeistBadge_feature_div", ".zeitgeistBadge"), kind="text", css_class="badge", text_limit=80),
        Rule(
            ("#dealBadge_feature_div", "#dealBadgeSupportingText", ".dealBadge"),
            kind="text",
            css_class="badge",
            text_limit=80,
        ),
        Rule(
            ("#promoPriceBlockMessage_feature_div", "#couponBadgeRegularVpc", "#vpcButton", ".couponLabelText"),
            kind="text",
            css_class="coupon",
            text_limit=120,
        ),
        PRODUCT_OPTIONS,
        Rule(
            ("#feature-bullets", "#productFactsDesktopExpander"),
            name="about_this_item",
            kind="text",
            tag="div",
            css_class="about-this-item",
            text_limit=1200,
        ),
        Rule(("#productOverview_feature_div",), kind="text", tag="div", css_class="product-overview", text_limit=600),
        BUYBOX,
        CART_SIDE_BAR,
        CAROUSEL,
        CUSTOMER_REVIEWS,
    ),
)
