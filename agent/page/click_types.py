"""The 13 OPeRA click types, and how to tell an element's click type from its semantic name.

The taxonomy and the name patterns are OPeRA's (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0). The rules
are ordered: the first that matches wins, so the more specific ones come first (an add-to-cart button
inside a search result is a purchase, a product title inside a "4 stars and above" block is a product link).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from agent.page.money import find_money

# In OPeRA's order of frequency in the filtered release.
CLICK_TYPES: tuple[str, ...] = (
    "review",
    "search",
    "product_option",
    "product_link",
    "other",
    "purchase",
    "nav_bar",
    "page_related",
    "quantity",
    "suggested_term",
    "cart_side_bar",
    "cart_page_select",
    "filter",
)

_PURCHASE = re.compile(
    r"(add_to_(?:shopping_|my_|your_)?(?:cart|basket|bag|trolley)|buy_now|(?:place|submit|confirm)_bid|bid_now|subscribe|check_?out|place_order|proceed_to|purchase_button|add_to_order)"
)
# The same controls in the other languages of the shops in the data, as slugs (accents folded): add to cart, buy,
# order, checkout (Slovene and Croatian "Naroči" / "U košaricu", Latvian "Ielikt grozā", Lithuanian "Į krepšelį",
# Estonian "Lisa ostukorvi" among them), and a marketplace's buy-it-now and bid ("Compralo Subito", "Fai un'offerta",
# "Achat immédiat", "Enchérir", "Gebot abgeben"). Whole words only: "kaufen" buys, "weiter_einkaufen" (continue
# shopping) does not.
_PURCHASE_ELSEWHERE = re.compile(
    r"(?:^|_)(?:(?:in_den_|zum_)?warenkorb(?:_legen|_hinzufugen)?|(?:jetzt_|sofort_)?kaufen|zur_kasse|kasse|"
    r"ajouter_au_panier|ajouter_au_sac|acheter(?:_maintenant)?|commander|passer_(?:la_)?commande|"
    r"anadir_al_carrito|anadir_a_la_cesta|anadir_a_la_bolsa|comprar(?:_ahora|_agora)?|finalizar_(?:compra|pedido)|"
    r"tramitar_pedido|aggiungi_al_carrello|acquista(?:_ora)?|procedi_all_acquisto|cassa|"
    r"in_(?:de_)?winkelwagen|toevoegen_aan_winkelwagen|in_winkelmand|afrekenen|"
    r"adicionar_ao_carrinho|finalizar|dodaj_do_koszyka|do_koszyka|kup(?:_teraz)?|"
    r"lagg_i_varukorgen|kop(?:_nu)?|till_kassan|laeg_i_kurv|kob|legg_i_handlekurv|kjop|lisaa_ostoskoriin|osta|"
    r"(?:vlozit_|pridat_)?do_kosika|koupit|kupit|(?:dodaj_)?v_kosarico|kupi|kosarba|kosarba_teszem|"
    r"sepete_ekle|satin_al|adauga_in_cos|cumpara|"
    r"(?:dodaj_)?u_kosaricu|naroci|naruci|ielikt_groza|pievienot_grozam|(?:ideti_)?i_krepseli|(?:lisa_)?ostukorvi|"
    r"compralo_subito|fai_un_offerta|achat_immediat|encherir|placer_une_enchere|compralo_ya|pujar|"
    r"jetzt_bieten|gebot_abgeben|licytuj)"
    r"(?:_\d+)?$"
)
_PURCHASE_TEXTS = (
    "add to cart",
    "add to basket",
    "add to bag",
    "add to shopping cart",
    "add to shopping basket",
    "add to shopping bag",
    "buy now",
    "proceed to checkout",
    "в корзину",
    "купить",
    "оформить заказ",
    "у кошик",
    "купити",
    "sepete ekle",
    "カートに入れる",
    "購入",
    "加入购物车",
    "立即购买",
    "اضف الى السلة",  # Arabic, written with or without hamza (folded by _fold_arabic): add to cart / bag, buy now
    "اضف الى حقيبة",
    "اضف الى الحقيبة",
    "اضف الى العربة",
    "اضف للسلة",
    "اشتر الان",
    "הוסף לסל",
    "στο καλάθι",
    "αγορά",
    "do košíku",
    "do koszyka",
    "kosárba",
    "în coș",
)
# Any shop: a "view cart" link in the page itself, not in its header or navigation (the generic simplifier's
# landmarks), is the panel an add-to-cart opens, as Amazon's cart side sheet is; the cart link in the header is
# the shop's nav bar cart button (OPeRA's nav_bar.cart_button).
_SITE_FRAME = frozenset({"header", "nav", "footer"})
_GO_TO_CART = re.compile(
    r"^(?:view|go_to|see|show|open)_(?:your_|my_)?(?:cart|basket|bag|trolley)$|"
    r"^(?:zum_warenkorb|voir_(?:le_|mon_)?panier|ver_(?:el_)?carrito|vai_al_carrello|"
    r"naar_winkelwagen|do_koszyka_przejdz)$"
)
_SEARCH_LAST = re.compile(r"(?:search|search_submit|submit_search)(?:_\d+)?")  # "search_2": a second "Search"
_CARTS = (
    r"(?:cart|basket|bag|trolley|warenkorb|panier|carrito|cesta|carrello|winkelwagen|winkelmand|mandje|koszyk|"
    r"varukorg|kurv|handlekurv|ostoskori|kosik|kosarica|kosar|sepet|sepetim|carrinho|cos)"
)
_CART_LINK = re.compile(
    rf"^(?:(?:view|go_to|see|show|open|zum|voir|ver|vai_al)_)?(?:your_|my_|mein_|mon_|mi_|il_)?"
    rf"(?:shopping_)?{_CARTS}(?:_\d+)?$"
)
_WRITING = re.compile(r"(?:^|_)(?:write|leave|save|submit|post|rate)(?:_|$)")
_PRODUCT_LINK = re.compile(r"^(product_(name|image|title|detail|link|price)|title|title_link|image|item_link)$")
_PAGE_RELATED = re.compile(
    r"(pagination|next_page|previous_page|prev_page|carousel|see_more|show_more|page_\d+|^page$|see_all)"
)
_FILTER = re.compile(r"(^refinements|^filter|\.filter|sort_by|^sort)")
_REVIEW = re.compile(r"(review|rating|stars|^acr|customer_photos)")

# On a checkout page, the control that takes the order on to its next step is a purchase click, as "Proceed to
# checkout" is: Continue, Next, Continue to payment, Review order, Use this address, Pay. "Continue shopping" and
# "Return to cart" leave the checkout and are not.
_CHECKOUT_STEP = re.compile(
    r"^(?:continue|next|next_step|proceed|save_and_continue|continue_to_(?:shipping|delivery|payment|billing|review|"
    r"preview|checkout|order|summary|confirmation|next_step)|(?:go|proceed)_to_(?:shipping|delivery|payment|billing|"
    r"review|preview|checkout|order|summary)|"
    r"review_(?:your_|my_)?order|use_this_address|ship_to_this_address|deliver_to_this_address|pay|pay_now|"
    r"confirm|confirm_and_pay)(?:_\d+)?$"
)

# A classified ad has no cart: replying to the seller is how a buyer takes it (laendleanzeiger.at's "Kontaktieren",
# "Contact seller", "Reply to ad"). Only the seller's: "Kontakt" and "Contact us" are the site's.
_REPLY_TO_SELLER = re.compile(
    r"(?:^|_)(?:(?:contact|message|email|e_mail|call)_(?:the_)?(?:seller|advertiser|poster)|"
    r"reply_to_(?:the_)?(?:ad|seller)|(?:anbieter_|verkaufer_|inserent_)?kontaktieren|"
    r"nachricht_an_(?:den_)?(?:anbieter|verkaufer)|contacter_(?:le_vendeur|l_annonceur)|"
    r"contactar(?:_con)?_(?:al_|el_)?(?:vendedor|anunciante)|contatta(?:_il)?_(?:venditore|inserzionista)|"
    r"contatar_(?:o_)?(?:vendedor|anunciante)|contact_opnemen|verkoper_contacteren|"
    r"skontaktuj_sie(?:_ze_sprzedajacym)?)(?:_\d+)?$"
)

# (predicate on (name, parts, last), click type), first match wins.
_RULES: tuple[tuple[Callable[[str, list[str], str], bool], str], ...] = (
    (lambda n, p, last: "suggested_term" in n or "suggestion" in n, "suggested_term"),
    (
        lambda n, p, last: (
            "search_input" in n
            or "search_button" in n
            or "search_box" in n
            or bool(_SEARCH_LAST.fullmatch(last))
            or n.startswith("nav_bar.search")
        ),
        "search",
    ),
    (
        lambda n, p, last: n.startswith("cart_side_bar") or (bool(_GO_TO_CART.match(last)) and p[0] not in _SITE_FRAME),
        "cart_side_bar",
    ),
    (
        lambda n, p, last: (
            (p[0] == "active_item_list" and last in ("checkbox", "select", "select_all", "deselect_all"))
            or "select_all" in n
            or "deselect_all" in n
        ),
        "cart_page_select",
    ),
    (
        lambda n, p, last: (
            bool(_PURCHASE.search(last))
            or n in ("check_out", "checkout")
            or (bool(_PURCHASE_ELSEWHERE.search(last)) and p[0] not in _SITE_FRAME)
        ),
        "purchase",
    ),
    (lambda n, p, last: bool(_PRODUCT_LINK.match(last)), "product_link"),
    (lambda n, p, last: "review" in n and bool(_WRITING.search(last)), "other"),  # writing one is not reading them
    (lambda n, p, last: p[0].startswith("review") or bool(_REVIEW.search(p[0])) or "review" in n, "review"),
    (
        lambda n, p, last: (
            p[0].startswith("product_option")
            or "button_list" in n
            or "drop_down_list." in n
            or "variation" in n
            or "twister" in n
        ),
        "product_option",
    ),
    (lambda n, p, last: "quantity" in n, "quantity"),
    (lambda n, p, last: bool(_FILTER.search(n)), "filter"),
    (lambda n, p, last: bool(_PAGE_RELATED.search(n)), "page_related"),
    (lambda n, p, last: p[0] == "nav_bar" or (p[0] in _SITE_FRAME and bool(_CART_LINK.match(last))), "nav_bar"),
    (lambda n, p, last: bool(_REVIEW.search(n)), "review"),
)


@lru_cache(maxsize=65_536)
def _infer(name: str) -> str:
    lowered = name.lower()
    parts = lowered.split(".")
    last = parts[-1]
    for predicate, click_type in _RULES:
        if predicate(lowered, parts, last):
            return click_type
    return "other"


def infer_click_type(name: str, tag: str | None = None, text: str | None = None) -> str:
    """OPeRA click type of the element named `name` (tag and text are hints for names that say little)."""
    click_type = _infer(name)
    if click_type == "other" and text:
        words = _fold_arabic(text.lower())
        if any(phrase in words for phrase in _PURCHASE_TEXTS):
            return "purchase"
    return click_type


# Arabic shops write alef with or without its hamza or madda ("أضف إلى" and "اضف الى" are the same words).
_ALEFS = str.maketrans(dict.fromkeys("\u0623\u0625\u0622", "\u0627"))  # alef with hamza above / below, madda


def _fold_arabic(text: str) -> str:
    return text.translate(_ALEFS)


def links_a_product(name: str, tag: str | None, role: str | None, text: str) -> bool:
    """A link in the page (not its header, navigation or footer) whose own text is a product's title and price
    ("Levi's SEINE - Belt - black 22,95 €"): a product tile, as many shops render the products they recommend or
    list, so it opens a product (OPeRA's product_link) whatever the shop names it."""
    if tag != "a" and (role or "").lower() != "link":
        return False
    if name.lower().split(".", 1)[0] in _SITE_FRAME or not text:
        return False
    amounts = find_money(text)
    if not amounts:
        return False
    title = text[: amounts[0].start]
    return len(_TITLE_WORD.findall(title)) >= 2 and not _NOT_A_PRICE.search(title[-24:])


_TITLE_WORD = re.compile(r"[^\W\d_]{2,}")
# An amount after these words is a threshold, a fee or a saving, not a product's price ("Free delivery over £50",
# "Everything under 10 €", "Tout à moins de 10€", "Save $20", "Shipping: $4.99"), in the shops' main languages.
_NOT_A_PRICE = re.compile(
    r"(?:over|above|under|below|less than|up to|orders?(?: of)?|spend|save|saving|shipping|delivery|fee|"
    r"unter|über|bis|ab|versand|moins de|plus de|jusqu'à|livraison|menos de|más de|hasta|envío|meno di|sotto|"
    r"spedizione|poniżej|до|от)\W*$",
    re.IGNORECASE,
)


def checkout_click_type(name: str, click_type: str) -> str:
    """On a checkout page: a control that says nothing more specific ("other") and moves the order on to its next
    step (Continue, Next, Review order, Pay) is a purchase click; everything else keeps its type."""
    if click_type == "other" and _CHECKOUT_STEP.match(name.lower().rsplit(".", 1)[-1]):
        return "purchase"
    return click_type


def ad_reply_click_type(name: str, click_type: str) -> str:
    """On a page with no purchase control, a classified ad: replying to the seller (outside the site's header, nav
    and footer) is the purchase click, how a buyer takes the item. Where the page sells (eBay's "Contact seller"
    beside "Buy it now") it is a question to the seller, and keeps its type; the caller decides which page it is."""
    parts = name.lower().split(".")
    if click_type == "other" and parts[0] not in _SITE_FRAME and _REPLY_TO_SELLER.search(parts[-1]):
        return "purchase"
    return click_type


def is_checkout_step(name: str) -> bool:
    """A control that moves an order on to its next step, not the one that places it."""
    return _CHECKOUT_STEP.match(name.lower().rsplit(".", 1)[-1]) is not None
