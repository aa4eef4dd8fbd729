"""A shop's own buy button buys the product its page is about, however the shop words it: "Add to shopping bag" (a
British shop), "اضف الى حقيبة التسوق" (an Arabic shop writing alef without its hamza, where the rule knew only
"أضف إلى السلة"), and an auction's "Submit bid" on a page whose item panel is aria-hidden behind a consent banner.
These pages read as unable to sell before, so their twins could not buy at any price.

Markup cut from real product pages of the development half of Zyte's product-extraction benchmark
(scrapinghub/product-extraction-benchmark, commit cba97d7, MIT License, Copyright (c) 2021 Zyte), trimmed to the
elements that matter with the shops' own attributes and texts kept; each fixture names the page it was cut from.
"""

from __future__ import annotations

import pytest

from agent.page.click_types import infer_click_type
from agent.page.read_page import observe_page

# From https://www.ikea.com/gb/en/p/fjantig-hook-black-60347102/ (GBP): the product's JSON-LD offer, its heading
# and price, and its buy module: "Add to shopping bag" beside "Save to wish list".
SHOPPING_BAG = """<html><head><title>FJANTIG black, Hook - IKEA</title>
<meta property="og:type" content="product">
<script type="application/ld+json" id="pip-range-json-ld">{"@context":"https://schema.org/","@type":"Product",
"name":"FJANTIG Hook - black","url":"https://www.ikea.com/gb/en/p/fjantig-hook-black-60347102/","sku":"603.471.02",
"brand":{"@type":"Thing","name":"IKEA"},"offers":{"@type":"Offer",
"url":"https://www.ikea.com/gb/en/p/fjantig-hook-black-60347102/","priceCurrency":"GBP","price":"3",
"itemCondition":"https://schema.org/NewCondition","availability":"https://schema.org/InStock",
"seller":{"@type":"Organization","name":"IKEA"}},
"aggregateRating":{"@type":"AggregateRating","ratingValue":"4.5","reviewCount":"17"}}</script></head>
<body><main><div><h1 class="range-revamp-header-section">
<div class="range-revamp-header-section__title--big">FJANTIG</div>
<div class="range-revamp-header-section__description">
<span class="range-revamp-header-section__description-text">Hook,
 black</span></div></h1></div><div class="range-revamp-pip-price-package__price-wrapper">
<div class="range-revamp-pip-price-package__main-price"><span class="range-revamp-price">
<span class="range-revamp-price__currency-symbol range-revamp-price__currency-symbol--leading">£</span>
<span class="range-revamp-price__integer">3</span><span class="range-revamp-price__unit">/ 3 pack</span></span></div>
</div><div class="js-buy-module range-revamp-buy-module"><div class="range-revamp-buy-module__buttons">
<div class="range-revamp-buy-module__buttons--left">
<button type="button" class="range-revamp-btn range-revamp-btn--emphasised"
 add-x-text="Add {productCount} items to shopping bag" data-test-target="add-to-cart-button"
 aria-label="Add to shopping bag" qty="1"><span class="range-revamp-btn__inner range-revamp-btn__inner--emphasised">
<span class="range-revamp-btn__copy"><span class="range-revamp-btn__label">Add to shopping bag</span></span></span>
</button></div><button type="button" class="range-revamp-btn range-revamp-btn--icon-secondary"
 data-test-target="add-to-list-button" aria-label="Save to wish list"
 save-x-text="Save {productCount} items to your wish list"
 remove-text="Remove from shopping list"><span class="range-revamp-btn__inner"></span></button></div></div>
</main></body></html>"""
SHOPPING_BAG_URL = "https://www.ikea.com/gb/en/p/fjantig-hook-black-60347102/"

# From https://ar-sa.namshi.com/buy-sass-belle-kids-freya-swan-tea-set-w725257a.html (SAR): the JSON-LD offer, the
# heading and price, the one size, and the add-to-bag link (a link to the cart that the shop's script turns into
# adding); "عرض الحقيبة" (view bag) in the confirmation the shop shows after adding.
ARABIC_BAG = """<html lang="ar" dir="rtl"><head><title>Kids Freya Swan Tea Set - ساس اند بيل</title>
<script type="application/ld+json">
  {"@context":"http://schema.org","@type":"Product","name":"Kids Freya Swan Tea Set","color":"وردي",
  "sku":"21128AC57NWP",
  "offers":{"@type":"Offer","url":"https://ar-sa.namshi.com/buy-sass-belle-kids-freya-swan-tea-set-w725257a.html",
  "availability":"http://schema.org/InStock","price":"126","priceCurrency":"SAR",
  "itemCondition":"http://schema.org/NewCondition"},"brand":{"@type":"Brand","name":"ساس اند بيل"},
  "aggregateRating":{"@type":"AggregateRating","ratingValue":5,"reviewCount":2}}
</script></head><body><div id="content"><section class="product"><div class="product__options">
<header><div class="product__details"><h2 class="product__brandname"><a href="/sass_belle/">ساس اند بيل</a></h2>
<h1 class="product__name">Kids Freya Swan Tea Set</h1>
<p class="product__price"><span> 126 ر.س </span><span class="includeVAT"> (تتضمن ضريبة القيمة المضافة) </span></p>
<div class="deliveryPromise__wrapper">توصيل سريع</div></div></header>
<div id="sizeSelector" class="size__selector animated"><div class="option_select"><div class="size-selection-bar">
<p class="faux_label"> القياس</p></div><ul id="product_size"><li><label class="selected available">
<span class="size">OS</span>
</label></li></ul></div></div>
<div class="product__cta"><div class="applepay_wrapper"><div class="cta__addtocart " id="add_to_cart">
<a href="/cart/" class="product-Addtocart-btn"><span class="cart-loader"><span class="icon-loader-white"></span>
</span>
<span class="cart-button-label block_button emphasise is-visible"><span><i class="icon-cart">
</i>اضف الى حقيبة التسوق</span>
</span></a></div></div></div></div></section>
<div class="BundleSelection__title">تمت إضافة المنتج إلى الحقيبة</div><div class="BundleSelection__buttons">
<a href="/cart" class="block_button BundleSelection__button-cart"><span>عرض الحقيبة</span></a></div>
</div></body></html>"""
ARABIC_BAG_URL = "https://ar-sa.namshi.com/buy-sass-belle-kids-freya-swan-tea-set-w725257a.html"


# From https://www.ebay.co.uk/itm/143863282131 (GBP): an auction whose item panel, heading and "Submit bid" button
# included, is aria-hidden while the consent banner before it holds the keyboard; a decorative aria-hidden boundary
# of the banner's keyboard trap.
BEHIND_BANNER = """<html><head><title>Pony Cart Harness - Fit Up To 10/11 Hh - Used With Shetland Pony/Small Donkey |
 eBay</title></head><body><div id="widgets-placeholder" class="widgets-placeholder" aria-hidden="false">
<div id="gdpr-banner" class="ghfe-ds6 gdpr-banner--slideup keyboard-trap--active" aria-hidden="false">
<div aria-hidden="true" tabindex="0" class="keyboard-trap-boundary"><span>Keyboard trap start</span></div>
<div class="gdpr-banner__wrapper"><h2 class="clipped">Data settings information and management</h2>
<p class="gdpr-banner__text">By clicking on an item or other link on the website or 'Accept', you agree to the use of
 cookies and other technologies to process your personal data.</p><div class="gdpr-banner-actions">
<a href="https://www.ebay.co.uk/gdpr" class="gdpr-banner-moreInfo">More information</a>
<button id="gdpr-banner-accept" aria-label="Accept privacy terms and settings">Accept</button></div></div></div></div>
<div id="Body" class=" sz940  " aria-hidden="false"><div id="CenterPanelDF" aria-hidden="true"><div id="CenterPanel">
<h1 class="it-ttl" itemprop="name" id="itemTitle">
<span class="g-hdn">Details about  &nbsp;</span>Pony Cart Harness - Fit
 Up To 10/11 Hh - Used With Shetland Pony/Small Donkey</h1>
<div id="mainContent" role="presentation" class="is " style="overflow:hidden;"><form><div class="actPanel ">
<div class="u-cb"><div class="vi-bbox-dspn u-flL lable pdT4 vi-startingBidAccColorClass">Starting bid:</div>
<div class="u-flL w29 vi-price " itemprop="offers" itemscope="itemscope" itemtype="https://schema.org/Offer">
<span class="notranslate" id="prcIsum_bidPrice" itemprop="price" content="115.0">£115.00</span>
<span itemprop="availability" content="https://schema.org/InStock"></span>
<span itemprop="priceCurrency" content="GBP"></span></div></div>
<div class="u-cb"><div class="u-flL u-b w29 ">
<label id="maxbidlabel" for="MaxBidId" class="u-dspn">Your maximum bid:</label>
<input id="MaxBidId" class="notranslate MaxBidClass" type="text" name="maxbid" value=""
 aria-label="Enter £115.00 or more">
</div><div class="u-flL ">
<a data-cta="placebid" role="button" id="bidBtn_btn" class="btn btn-prim vi-VR-btnWdth-L vilens-item"
 href="https://offer.ebay.co.uk/ws/eBayISAPI.dll?MakeBid&amp;fromPage=2047675&amp;item=143863282131&amp;fb=2"
 rel="nofollow"> Submit bid</a></div></div></div></form></div></div></div></div></body></html>"""
BEHIND_BANNER_URL = "https://www.ebay.co.uk/itm/143863282131"


def _buy_texts(observation) -> list[str]:
    product = observation.facts.focus_product
    assert product is not None
    return [observation.by_name[name].text for name in product.buy_names]


def test_add_to_shopping_bag_buys_the_product_in_view():
    observation = observe_page(SHOPPING_BAG, url=SHOPPING_BAG_URL, simplified=False)
    product = observation.facts.focus_product
    assert observation.page_type == "product"
    assert product is not None and (product.price, product.currency, product.availability) == (3.0, "GBP", "in_stock")
    assert _buy_texts(observation) == ["Add to shopping bag"]
    assert observation.facts.can_buy


def test_an_arabic_add_to_bag_written_without_hamza_buys_the_product_in_view():
    observation = observe_page(ARABIC_BAG, url=ARABIC_BAG_URL, simplified=False)
    product = observation.facts.focus_product
    assert product is not None and (product.price, product.currency) == (126.0, "SAR")
    assert _buy_texts(observation) == ["اضف الى حقيبة التسوق"]
    assert observation.facts.can_buy


@pytest.mark.parametrize(
    ("page", "url"),
    [(SHOPPING_BAG, "https://shop.example.org/items/hook-3"), (ARABIC_BAG, "https://shop.example.org/p/tea-set")],
)
def test_the_same_page_under_another_host_sells_the_same(page, url):
    """No rule keyed to the shop: served elsewhere, the page reads the same price and buy button."""
    here = observe_page(page, url=url, simplified=False)
    there = observe_page(page, url=SHOPPING_BAG_URL if page is SHOPPING_BAG else ARABIC_BAG_URL, simplified=False)
    assert here.facts.can_buy and _buy_texts(here) == _buy_texts(there)
    assert here.facts.focus_product.price == there.facts.focus_product.price


def test_saving_viewing_the_bag_or_a_shopping_list_does_not_buy():
    observation = observe_page(SHOPPING_BAG, url=SHOPPING_BAG_URL, simplified=False)
    wish = [c for c in observation.candidates if c.text == "Save to wish list"]
    assert wish and wish[0].click_type != "purchase"
    observation = observe_page(ARABIC_BAG, url=ARABIC_BAG_URL, simplified=False)
    view_bag = [c for c in observation.candidates if c.text == "عرض الحقيبة"]
    assert view_bag and view_bag[0].click_type != "purchase"
    assert infer_click_type("main.add_to_shopping_list", "button", "Add to shopping list") != "purchase"
    assert infer_click_type("main.add_to_my_wish_list", "button", "Add to my wish list") != "purchase"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("main.hook.add_to_shopping_bag", "Add to shopping bag"),
        ("main.add_to_shopping_cart", "Add to Shopping Cart"),
        ("main.add_to_your_basket", "Add to your basket"),
        ("page.cart", "أضف إلى السلة"),
        ("page.cart", "اضف الى السلة"),
        ("page.btn", "اشتر الآن"),
    ],
)
def test_add_to_bag_wordings_are_purchase_clicks(name, text):
    assert infer_click_type(name, "button", text) == "purchase"


def test_a_page_aria_hidden_behind_a_consent_banner_is_still_seen_and_its_bid_buys():
    """aria-hidden hides from screen readers, not from the eye: the subtree holding the page's heading stays."""
    observation = observe_page(BEHIND_BANNER, url=BEHIND_BANNER_URL, simplified=False)
    product = observation.facts.focus_product
    assert product is not None and (product.price, product.currency) == (115.0, "GBP")
    assert _buy_texts(observation) == ["Submit bid"]
    assert observation.facts.can_buy
    assert "Pony Cart Harness" in observation.text


def test_an_aria_hidden_part_without_the_pages_heading_is_still_dropped():
    observation = observe_page(BEHIND_BANNER, url=BEHIND_BANNER_URL, simplified=False)
    assert "Keyboard trap start" not in observation.text
    unheaded = BEHIND_BANNER.replace('<h1 class="it-ttl"', '<h2 class="it-ttl"').replace("</h1>", "</h2>")
    observation = observe_page(unheaded, url=BEHIND_BANNER_URL, simplified=False)
    assert "Submit bid" not in observation.text and not any(c.text == "Submit bid" for c in observation.candidates)
