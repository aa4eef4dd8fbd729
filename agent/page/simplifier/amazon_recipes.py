"""Amazon recipes: search results, product detail, cart (and any other Amazon page), as data.

Names follow OPeRA's simplified pages (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0; name patterns
in ../shared/data/opera/README.md): `nav_bar.search_input`, `search_results.<title>.product_name`,
`refinements.<group>.<value>`, `product_options.<dimension>.button_list.<choice>`,
`buybox.purchase_form.add_to_cart`, `reviews`, `active_item_list.<title>.delete`, `check_out` ...
Where OPeRA's name for an element is not documented, the name is built the same way from the
element's role and text, and docs/simplifier.md lists it as ours.

Every element has several selectors, newest markup first, older after: Amazon's markup changes over
the years and the first selector that matches wins.
"""

from __future__ import annotations

from agent.page.simplifier.recipes import Recipe, Rule

AMAZON_URL = r"^(?:https?://)?(?:[\w-]+\.)*amazon\.[a-z.]+(?::\d+)?"
PRICE_TEXT = r"^\s*Price:\s*"

# --- shared: the top navigation bar ---------------------------------------------------------------

SEARCH_FORM = Rule(
    ("#nav-search-bar-form", "form[name=site-search]", "form[role=search]", "#nav-search"),
    tag="form",
    role="search",
    virtual_if_missing=True,
    children=(
        Rule(
            ("#searchDropdownBox", "select[name=url]"),
            name="search_drop_down_list",
            kind="select",
            keep_options=False,
            keep_attrs=("title",),
        ),
        Rule(
            ("input#twotabsearchtextbox", "input[name=field-keywords]", "#nav-bb-search", "input[type=search]"),
            name="search_input",
            kind="input",
            role="searchbox",
            keep_attrs=("aria-label",),
        ),
        Rule(
            (
                "#nav-search-submit-button",
                ".nav-search-submit input[type=submit]",
                "input[type=submit]",
                "button[type=submit]",
            ),
            name="search_button",
            kind="click",
            tag="button",
            text_from=("@label", "@self"),
            text_default="Go",
        ),
    ),
)

SUGGESTIONS = Rule(
    ("#nav-flyout-searchAjax .s-suggestion", ".s-suggestion-container .s-suggestion", "div.s-suggestion"),
    name="suggested_terms.{label|text}",
    kind="click",
    tag="div",
    many=True,
    limit=12,
    page_scope=True,
)

NAV_BAR = Rule(
    ("#navbar", "#navbar-main", "header#navbar", "#nav-belt"),
    name="nav_bar",
    role="navigation",
    keep_attrs=("aria-label",),
    virtual_if_missing=True,
    children=(
        Rule(
            ("#nav-logo-sprites", "#nav-logo a", "a.nav-logo-link"),
            name="homepage",
            kind="click",
            tag="div",
            text_from=("=Homepage",),
        ),
        Rule(("#nav-global-location-popover-link", "#glow-ingress-block"), name="deliver_to", kind="click"),
        SEARCH_FORM,
        SUGGESTIONS,
        Rule(("#nav-hamburger-menu",), name="menu", kind="click", text_default="All"),
        Rule(("#nav-link-accountList", "#nav-link-yourAccount"), name="account_and_lists", kind="click"),
        Rule(("#nav-orders",), name="returns_and_orders", kind="click"),
        Rule(
            ("#nav-cart", "a[href*='/gp/cart/view']", "#nav-cart-count-container"),
            name="cart_button",
            kind="click",
            tag="a",
        ),
        Rule(("#nav-xshop a", "#nav-subnav a"), name="{text}", kind="click", many=True, limit=20),
    ),
)

CART_SIDE_BAR = Rule(
    ("#attach-desktop-sideSheet", "#ewc-content", "#nav-flyout-ewc", "#attach-accessory-pane"),
    name="cart_side_bar",
    page_scope=True,
    children=(
        Rule(
            ("#attach-sidesheet-view-cart-button", "#sw-gtc a", "a[href*='/gp/cart/view']", "#ewc-go-to-cart"),
            name="go_to_cart",
            kind="click",
            tag="a",
            text_default="Go to Cart",
        ),
        Rule(
            ("#attach-sidesheet-checkout-button", "input[name=proceedToRetailCheckout]"),
            name="check_out",
            kind="click",
            tag="button",
            text_from=("@label", "@self"),
            text_default="Proceed to checkout",
        ),
    ),
)

# --- search results -------------------------------------------------------------------------------

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

# --- product detail -------------------------------------------------------------------------------

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
        Rule(("#availability", "#outOfStock"), kind="text", tag="div", css_class="availability"),
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

# --- cart -----------------------------------------------------------------------------------------

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

# --- any other Amazon page: the named nav bar, then the generic fallback for the rest -------------

OTHER_RECIPE = Recipe(
    name="amazon_other",
    page_type="other",
    url_pattern=AMAZON_URL,
    landmarks=("#nav-logo-sprites", "#navbar #twotabsearchtextbox"),
    rules=(NAV_BAR,),
    generic_rest=True,
)

# Checked in this order: the most specific landmarks first.
AMAZON_RECIPES: tuple[Recipe, ...] = (CART_RECIPE, PRODUCT_RECIPE, SEARCH_RECIPE, OTHER_RECIPE)
