"""The page frame every Amazon recipe shares: the URL pattern, the top navigation bar (search form, search
suggestions) and the cart side bar that slides in after an add to cart.

It exists so the search, product and cart recipes (amazon_search_recipe.py, amazon_product_recipe.py,
amazon_cart_recipe.py) and the fallback for other Amazon pages (amazon_recipes.py) name these elements the same
way, from one definition. Naming conventions and selector order: see amazon_recipes.py.
"""

from __future__ import annotations

from agent.page.simplifier.recipes import Rule

AMAZON_URL = r"^(?:https?://)?(?:[\w-]+\.)*amazon\.[a-z.]+(?::\d+)?"

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
