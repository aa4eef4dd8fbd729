"""Amazon recipes: search results, product detail, cart (and any other Amazon page), as data.

This module holds the fallback for any other Amazon page and the order recipes are tried in; each page type's
recipe has its own module (amazon_search_recipe.py, amazon_product_recipe.py, amazon_cart_recipe.py), over the
shared page frame (amazon_page_frame.py).

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

from agent.page.simplifier.amazon_cart_recipe import CART_RECIPE
from agent.page.simplifier.amazon_page_frame import AMAZON_URL, NAV_BAR
from agent.page.simplifier.amazon_product_recipe import PRODUCT_RECIPE
from agent.page.simplifier.amazon_search_recipe import SEARCH_RECIPE
from agent.page.simplifier.recipes import Recipe

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
