"""The raw-HTML simplifier: real Amazon search page, hand-written Amazon product/cart pages, a generic shop.

Expected names are OPeRA's (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0; ../shared/data/opera/README.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from agent.opera_data import opera_data_dir
from agent.page.shape import PageShapeLimits, PageTooComplex
from agent.page.simplifier import SimplifiedPage, simplify, simplify_html
from agent.page.simplifier.recipes import Recipe, Rule, apply_recipe
from agent.page.simplifier.slug import UniqueNames, slugify

FIXTURES = Path(__file__).parent / "fixtures" / "raw_pages"
REAL_SEARCH_PAGE = opera_data_dir().parent / "pages" / "amazon_search_results.html"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def named(page: SimplifiedPage, name: str):
    """The output element carrying `name`, or fail with the names that exist."""
    node = LexborHTMLParser(page.html).css_first(f'[name="{name}"]')
    assert node is not None, f"{name!r} missing; have {page.names[:80]}"
    return node


def folded_text(node) -> str:
    return " ".join(node.text(separator=" ").split())


# --- slugs and unique names -----------------------------------------------------------------------


def test_slug_follows_opera_rule():
    assert slugify("Dolphin $6.99 $6.99") == "dolphin_6_99_6_99"  # the README's real example
    assert slugify("  Men's Basketball Shoes ") == "men_s_basketball_shoes"
    assert slugify("Café Crème") == "cafe_creme"
    assert slugify("★★★") == ""
    assert slugify("a very long product title that goes on", max_len=20) == "a_very_long_product"


def test_unique_names_suffix_in_order():
    names = UniqueNames()
    assert [names.claim(n) for n in ("a", "a", "b", "a", "a_2")] == ["a", "a_2", "b", "a_3", "a_2_2"]
    assert len(set(names.in_order)) == 5
    with pytest.raises(ValueError):
        names.claim("")


# --- the real amazon.com search results page ------------------------------------------------------


@pytest.fixture(scope="module")
def real_search() -> tuple[str, SimplifiedPage]:
    if not REAL_SEARCH_PAGE.exists():
        pytest.fail(
            f"the real amazon.com page is missing at {REAL_SEARCH_PAGE} (set TWINSIM_OPERA_DATA or TWINSIM_SHARED_DIR: "
            "agent/opera_data.py)"
        )
    raw = REAL_SEARCH_PAGE.read_text(encoding="utf-8", errors="replace")
    return raw, simplify_html(raw, "https://www.amazon.com/s?k=red+basketball+shoes")


def test_real_search_page_keeps_90_percent_of_products_with_name_and_price(real_search):
    raw, page = real_search
    assert (page.recipe, page.page_type) == ("amazon_search", "search_results")
    raw_results = LexborHTMLParser(raw).css('div[data-component-type="s-search-result"]')
    out_results = LexborHTMLParser(page.html).css("div.search-result")
    assert len(raw_results) == len(out_results) > 40

    complete = 0
    for raw_result, out_result in zip(raw_results, out_results, strict=True):
        title = " ".join(raw_result.css_first("h2").text().split())
        price_node = raw_result.css_first("span.a-price > span.a-offscreen")
        container = out_result.attributes["name"]
        assert container.startswith("search_results." + slugify(title))
        name = out_result.css_first(f'[name="{container}.product_name"]')
        price = out_result.css_first(f'[name="{container}.product_price"]')
        assert name is not None and folded_text(name) == title
        if price_node is not None:
            assert price is not None and folded_text(price) == price_node.text().strip()
            complete += 1
    assert complete / len(raw_results) >= 0.90


def test_real_search_page_search_box_and_button_named_as_opera(real_search):
    _, page = real_search
    box = named(page, "nav_bar.search_input")
    assert box.tag == "input" and box.attributes["value"] == "red basketball shoes"
    assert named(page, "nav_bar.search_button").tag == "button"


def test_real_search_page_filters_pagination_and_size(real_search):
    raw, page = real_search
    assert folded_text(named(page, "refinements.brand.nike")) == "Nike"
    assert folded_text(named(page, "refinements.customer_reviews.4_stars_up")) == "4 Stars & Up"
    assert named(page, "refinements.price.low_price").tag == "input"
    assert folded_text(named(page, "pagination.next")) == "Next"
    assert "$59.49" in page.html
    assert len(page.html) <= 0.10 * len(raw)
    assert "window.navmet" not in page.html and "<script" not in page.html


def test_names_are_unique_and_match_the_html(real_search):
    _, page = real_search
    assert len(page.names) == len(set(page.names))
    in_html = [n.attributes["name"] for n in LexborHTMLParser(page.html).css("[name]")]
    assert in_html == page.names
    assert not re.search(r'name="(field-keywords|quantity|url)"', page.html)  # Amazon's own form names never leak
    assert " id=" not in page.html  # OPeRA's pages carry no id attributes


# --- Amazon product detail pages (three generations of markup) ------------------------------------


def test_product_page_has_opera_names():
    page = simplify_html(fixture("amazon_product.html"), "https://www.amazon.com/dp/B083GBK2PN")
    assert (page.recipe, page.page_type) == ("amazon_product", "product")
    assert folded_text(named(page, "product_title")) == "Hydro Flask Wide Mouth Bottle with Flex Cap, 32 oz"
    assert folded_text(named(page, "product_price")) == "Price: $44.95"
    assert "$99.99" not in page.html  # the aok-hidden stale price
    for choice in ("pacific", "black", "lupine"):
        assert named(page, f"product_options.color.button_list.{choice}").tag == "li"
    named(page, "product_options.style.button_list.flex_cap_44_95")
    assert "aria-selected" in named(page, "product_options.size.drop_down_list.32_oz").attributes
    assert folded_text(named(page, "buybox.purchase_form.add_to_cart")) == "Add to Cart"
    assert folded_text(named(page, "buybox.purchase_form.buy_now")) == "Buy Now"
    reviews = named(page, "reviews")
    assert folded_text(reviews) == "(31,572)" and reviews.attributes["aria-label"] == "31,572 Reviews"
    assert "4.8 out of 5 stars" in folded_text(named(page, "reviews.star_rating"))
    named(page, "4_stars_and_above.owala_freesip_insulated_stainless_steel_water_bottle_24_oz.product_title")
    named(page, "customer_reviews.see_all_reviews")
    assert "Hidden bullet" not in page.html and "ad based on" not in page.html


@pytest.mark.parametrize(
    ("fixture_name", "title", "price", "options"),
    [
        (
            "amazon_product_2019.html",
            "Coleman Portable Camping Quad Chair with 4-Can Cooler",
            "$29.99",
            ("product_options.color.button_list.red_29_99", "product_options.color.button_list.blue_31_49"),
        ),
        (
            "amazon_product_2024.html",
            "Anker USB C Charger 30W, 711 Charger, Compact Fast Charger",
            "$15.99",
            ("product_options.color.button_list.white", "product_options.size.button_list.2_pack"),
        ),
    ],
)
def test_product_page_markup_generations(fixture_name, title, price, options):
    page = simplify_html(fixture(fixture_name))
    assert page.recipe == "amazon_product"
    assert folded_text(named(page, "product_title")) == title
    assert folded_text(named(page, "product_price")) == f"Price: {price}"
    for option in options:
        named(page, option)
    for name in (
        "buybox.purchase_form.add_to_cart",
        "buybox.purchase_form.buy_now",
        "reviews",
        "nav_bar.search_input",
        "nav_bar.search_button",
    ):
        named(page, name)


def test_purchase_controls_outside_the_buy_box_container_keep_opera_names():
    """Hand-written markup: the buy box container holds only the stock line and the purchase controls sit
    beside it in the right column. Add to Cart and Buy Now are still OPeRA's buybox.purchase_form names, and
    a carousel's add-to-cart button elsewhere on the page is not taken for the product's."""
    page = simplify_html(
        "<div id=navbar><form id=nav-search-bar-form><input id=twotabsearchtextbox name=field-keywords>"
        "<input id=nav-search-submit-button type=submit value=Go></form></div>"
        "<div id=dp><span id=productTitle>Desk Lamp</span>"
        "<div id=rightCol><div id=buybox><div id=availability>In Stock</div></div>"
        "<div id=addToCart_feature_div><select id=quantity name=quantity><option>1</option><option>2</option></select>"
        "<span id=submit.add-to-cart><input id=add-to-cart-button type=submit value='Add to Cart'></span></div>"
        "<div id=buyNow_feature_div><input id=buy-now-button type=submit value='Buy Now'></div></div>"
        "<div class=a-carousel-container><h2>Related</h2><ul><li class=a-carousel-card><a href=/dp/B1>Shade</a>"
        "<input name=submit.addToCart type=submit value='Add to cart'></li></ul></div></div>"
    )
    assert page.recipe == "amazon_product"
    assert named(page, "buybox.purchase_form.add_to_cart").text().strip() == "Add to Cart"
    assert named(page, "buybox.purchase_form.buy_now").text().strip() == "Buy Now"
    named(page, "buybox.purchase_form.quantity_selector")
    assert [n for n in page.names if n.endswith("add_to_cart")] == ["buybox.purchase_form.add_to_cart"]


def test_purchase_controls_are_not_borrowed_from_elsewhere_when_the_product_has_none():
    page = simplify_html(
        "<div id=navbar><form id=nav-search-bar-form><input id=twotabsearchtextbox name=field-keywords>"
        "<input id=nav-search-submit-button type=submit value=Go></form></div>"
        "<div id=dp><span id=productTitle>Desk Lamp</span><div id=buybox><div id=outOfStock>Currently unavailable."
        "</div></div><div class=a-carousel-container><h2>Related</h2><ul><li class=a-carousel-card>"
        "<a href=/dp/B1>Shade</a><input name=submit.addToCart type=submit value='Add to cart'></li></ul></div></div>"
    )
    assert not [n for n in page.names if n.startswith("buybox.purchase_form")]


# --- Amazon cart ----------------------------------------------------------------------------------


def test_cart_page_controls_have_opera_names():
    page = simplify_html(fixture("amazon_cart.html"), "https://www.amazon.com/gp/cart/view.html")
    assert (page.recipe, page.page_type) == ("amazon_cart", "cart")
    flask = "active_item_list.hydro_flask_wide_mouth_bottle_with_flex_cap_32_oz"
    owala = "active_item_list.owala_freesip_insulated_stainless_steel_water_bottle_24_oz"
    assert named(page, f"{flask}.checkbox").attributes["aria-checked"] == "true"
    assert folded_text(named(page, f"{flask}.product_detail")) == "Hydro Flask Wide Mouth Bottle with Flex Cap, 32 oz"
    assert named(page, f"{flask}.quantity_selector").tag == "select"
    for control in ("delete", "save_for_later"):
        assert named(page, f"{flask}.{control}").tag == "button"
    for control in ("decrease_quantity_by_one", "increase_quantity_by_one", "delete"):
        named(page, f"{owala}.{control}")
    assert folded_text(named(page, "check_out")) == "Proceed to checkout"
    named(page, "cart_header.deselect_all_items")
    named(page, "saved_item_list.stanley_iceflow_flip_straw_tumbler_30_oz.move_to_cart")
    for price in ("$44.95", "$27.99", "$100.93"):
        assert price in page.html


# --- recipe detection -----------------------------------------------------------------------------


def test_detection_by_url_and_by_landmarks():
    product = fixture("amazon_product.html")
    assert simplify_html(product).recipe == "amazon_product"  # landmarks alone
    assert (
        simplify_html(product, "https://www.amazon.co.uk/Hydro-Flask/dp/B083GBK2PN/ref=sr_1_1").recipe
        == "amazon_product"
    )
    # An Amazon cart URL whose page has no cart landmark is not forced into the cart recipe.
    generic = fixture("generic_shop.html")
    assert simplify_html(generic, "https://www.amazon.com/gp/cart/view.html").recipe == "generic"
    assert simplify_html(generic, "https://shop.example/cart").page_type == "cart"


def test_other_amazon_page_gets_named_nav_bar_and_generic_rest():
    raw = (
        fixture("amazon_cart.html")
        .replace('id="sc-active-cart"', 'id="x"')
        .replace('name="proceedToRetailCheckout"', 'name="x"')
        .replace('id="sc-buy-box"', 'id="y"')
    )
    page = simplify_html(raw, "https://www.amazon.com/gp/help/customer/display.html")
    assert page.recipe == "amazon_other"
    named(page, "nav_bar.search_input")
    assert page.names.count("nav_bar.search_input") == 1  # the generic pass does not name it again
    assert any(n.endswith("proceed_to_checkout") for n in page.names)


# --- generic fallback -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generic_page() -> SimplifiedPage:
    return simplify_html(fixture("generic_shop.html"), "https://northwind.example/collections/mugs")


def test_generic_names_interactive_elements_by_section_and_text(generic_page):
    page = generic_page
    assert page.recipe == "generic"
    assert named(page, "header.form.search_products").tag == "input"
    assert named(page, "header.form.search").tag == "button"
    assert named(page, "header.primary.mugs").tag == "a"
    assert named(page, "main.filters.sort_by").tag == "select"
    assert named(page, "main.filters.colour.white").attributes["aria-checked"] == "true"
    assert named(page, "main.filters.clear_all_filters").attributes["role"] == "button"
    for card in ("blue_speckled_mug", "white_espresso_cup"):
        assert folded_text(named(page, f"main.{card}.add_to_cart")) == "Add to cart"
        named(page, f"main.{card}.title")
        named(page, f"main.{card}.image")
    assert named(page, "main.white_espresso_cup.qty").tag == "input"
    assert named(page, "main.stoneware_travel_cup.sold_out").attributes.get("aria-disabled") == "true"
    assert named(page, "main.pagination.next_page").attributes["aria-label"] == "Next page"
    assert named(page, "footer.join_our_newsletter.form.anything_else").tag == "textarea"
    assert len(page.names) == len(set(page.names))


def test_generic_keeps_visible_text_and_drops_scripts_styles_hidden(generic_page):
    html = generic_page.html
    for visible in ("Mugs &amp; Cups", "$24.00", "$14.50", "Rated 4.5 out of 5", "(128)", "Showing 3 of 3 products"):
        assert visible in html
    for hidden in (
        "SCRIPT_TEXT",
        "dataLayer",
        ".promo",
        "HIDDEN_BANNER",
        "Close hidden modal",
        "ARIA_HIDDEN",
        "NOSCRIPT",
    ):
        assert hidden not in html


def test_generic_names_are_stable_across_reloads(generic_page):
    raw = fixture("generic_shop.html")
    assert simplify(raw, "https://northwind.example/collections/mugs") == generic_page.html
    # A reload with fresh per-request noise (session tokens, generated classes, extra wrappers).
    reloaded = (
        raw.replace('class="product-card"', 'class="product-card css-9f8a7b" data-session="83hf2"')
        .replace('<main id="content">', '<main id="content"><div class="rsc-wrapper-x1">')
        .replace("</main>", "</div></main>")
    )
    assert simplify_html(reloaded).names == generic_page.names


def test_generic_duplicates_get_stable_suffixes():
    raw = "<main><button>Add to cart</button><button>Add to cart</button><a href='/x'>Add to cart</a></main>"
    assert simplify_html(raw).names == ["main.add_to_cart", "main.add_to_cart_2", "main.add_to_cart_3"]


def test_generic_fallback_reads_a_picture_of_stars():
    """Older shops draw the rating as a picture: its alt text, or without one its file name, is kept as text."""
    page = simplify_html(
        "<main><h1>Honda Generator</h1><div class=stars><img src='/images/stars_5.gif'> <a href='#r'>(35 "
        "Reviews)</a></div>"
        "<p><img src='https://img.example/stars-4-5._V1_.gif' alt='4.5 out of 5 stars'></p>"
        "<p><img src='/img/5-stars-hotel.jpg'><img src='/img/gallery.png' alt='Image 1 of 5'></p></main>"
    )
    text = LexborHTMLParser(page.html).body.text(separator=" ")
    assert "5 out of 5 stars" in text and "4.5 out of 5 stars" in text
    assert text.count("out of 5 stars") == 2


# --- broken input ---------------------------------------------------------------------------------


def test_broken_html_still_simplifies():
    product = fixture("amazon_product.html")
    truncated = simplify_html(product[: int(len(product) * 0.8)])
    assert truncated.recipe == "amazon_product"
    named(truncated, "buybox.purchase_form.add_to_cart")
    mangled = simplify_html("<div><p>unclosed <b>bold <a href=/x>Shop now<table><tr><td>cell</div></span><<>>&&")
    assert mangled.names == ["page.shop_now_cell"]
    assert simplify_html("").names == [] and simplify_html("\x00\xff<<<").names == []
    deep_page = "<div>" * 3000 + "<a href=/x>deep link</a>" + "<span><b>" * 1000
    with pytest.raises(PageTooComplex):  # beyond the default depth: refused before parsing (agent/page/shape.py)
        simplify_html(deep_page)
    deep = simplify_html(deep_page, limits=PageShapeLimits(max_depth=5_000))  # admitted: no RecursionError
    assert deep.names == ["page.deep_link"]
    with pytest.raises(TypeError):
        simplify_html(None)  # type: ignore[arg-type]


# --- the recipe engine itself ---------------------------------------------------------------------


def test_recipe_engine_fallback_selectors_templates_and_virtual_containers():
    recipe = Recipe(
        name="toy",
        page_type="product",
        url_pattern=r"toy\.example",
        landmarks=("#opts",),
        rules=(
            Rule(
                ("#missing", ".box"),
                name="panel",
                virtual_if_missing=True,
                children=(Rule(("#nope", "button.go"), name="{text}", kind="click"),),
            ),
            Rule(
                ("#opts",),
                name="opts",
                children=(
                    Rule(
                        ('div[id^="dim_"]',),
                        name="{id}",
                        id_pattern=r"dim_(\w+)",
                        many=True,
                        children=(Rule(("li",), name="{text|label}", kind="click", many=True),),
                    ),
                ),
            ),
        ),
    )
    tree = LexborHTMLParser(
        "<button class='go'>Go Now</button><div id=opts><div id=dim_size><li>Small</li><li><img alt='Large'></li></div>"
        "<div id=dim_color><li>Red</li></div></div>"
    )
    run = apply_recipe(tree, recipe)
    assert run.names.in_order == [
        "panel",
        "panel.go_now",
        "opts",
        "opts.size",
        "opts.size.small",
        "opts.size.large",
        "opts.color",
        "opts.color.red",
    ]
    bad = Recipe(
        name="bad",
        page_type="other",
        url_pattern="x",
        landmarks=("p",),
        rules=(Rule(("p",), name="{nonsense}", kind="click"),),
    )
    with pytest.raises(ValueError, match="nonsense"):
        apply_recipe(LexborHTMLParser("<p>x</p>"), bad)


# --- the observation parser reads the output ------------------------------------------------------


@pytest.mark.parametrize("fixture_name", ["amazon_product.html", "amazon_cart.html", "generic_shop.html"])
def test_observation_parser_reads_simplified_pages(fixture_name):
    from agent.page.parse import parse_page

    page = simplify_html(fixture(fixture_name))
    try:
        observation = parse_page(page.html)
    except NotImplementedError:
        pytest.skip("agent.page.observation.parse_page is not implemented yet")
    candidate_names = [c.name for c in observation.candidates]
    assert set(candidate_names) <= set(page.names)
    inputs = {c.name for c in observation.candidates if c.kind == "input"}
    tags = {n.attributes["name"]: n.tag for n in LexborHTMLParser(page.html).css("[name]")}
    assert inputs == {name for name, tag in tags.items() if tag in ("input", "textarea")}


def test_an_element_with_an_href_is_a_link_unless_it_holds_controls_of_its_own():
    """Sites whose script follows a `span`'s or `div`'s `href` draw links so; a carousel that carries its series'
    address around its products' links and buttons is a section, and they stay each a control."""
    raw = (
        "<html><body><main><h1>Sofas</h1>"
        "<span class='link' href='/offer/1' title='Corner sofa'>Corner sofa</span>"
        "<div class='carousel' href='/series/vallentuna'><h2>More in the series</h2>"
        "<a href='/p/2'>Sofa bed module</a><button>Add to shopping bag</button></div>"
        "<svg><use href='#icon'></use></svg></main></body></html>"
    )
    page = simplify_html(raw, url="https://shop.example/sofas")
    html = page.html
    assert '<a name="main.corner_sofa">Corner sofa</a>' in html
    assert ">Sofa bed module</a>" in html and ">Add to shopping bag</button>" in html
    assert not any("vallentuna" in name or "series" in name.rsplit(".", 1)[-1] for name in page.names)


def test_numbers_in_adjacent_elements_stay_two_numbers_and_cents_stay_with_their_amount():
    """ "<span>$200</span><span>2 bids</span>" is a bid and a count, not $2002; "173<sup>34</sup>" is 173.34 written
    with its cents raised, one amount."""
    raw = (
        "<html><body><main><h1>Bag</h1><div><span>$200</span><span><span>2<!-- --> <!-- -->bids</span></span></div>"
        "<p>173<sup>34</sup> Lei</p></main></body></html>"
    )
    html = simplify(raw)
    assert "<p>$200 2 bids</p>" in html and "<p>17334 Lei</p>" in html
