"""What kind of page a twin is on: every rule in one place, used by the twin (agent/page/parse.py) and the
simplifier alike (`classify_page`).

In order: amazon.com's URL paths and the OPeRA names a page's elements carry (`page_type`; calibration uses it on
the URL of each recorded step, with no names: OPeRA's pages are Amazon's); then the URL shapes of the common shop
platforms and shop-neutral URL words (`url_page_type`: Shopify, WooCommerce, Magento, Salesforce Commerce,
PrestaShop; cart, basket, bag; search, q=); then the page's title; then what the page declares in its structured
data (one product, or a list of them); then what it shows (`Shown`: a checkout's steps or its delivery and payment
questions, one product's price, stock or buy button, or several priced products). The behaviour model only uses the
kinds it can tell apart (`page_type_feature`): "other" and "none" say nothing and are dropped on both sides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlparse

PageType = Literal["search_results", "product", "cart", "checkout", "home", "other", "none"]


def page_type(url: str | None, names: Sequence[str] = ()) -> PageType:
    """Amazon's URL paths first, then the OPeRA names a page's elements carry (a cart lists active items, a
    product page has a buybox or options, a search page has results)."""
    parts = urlparse(url) if url else None
    path = parts.path.lower() if parts else ""
    query = parts.query if parts else ""
    if "checkout" in path or "/buy/" in path:
        return "checkout"
    if "/cart" in path or any(n.startswith("active_item_list") for n in names[:400]):
        return "cart"
    if "/dp/" in path or "/gp/product" in path or any(n.startswith(("buybox", "product_options")) for n in names):
        return "product"
    if (path.startswith("/s") and ("k=" in query or path.startswith("/s/"))) or any(
        n.startswith("search_results") for n in names
    ):
        return "search_results"
    if url and path in ("", "/"):
        return "home"
    return "other"


def page_type_feature(kind: str | None) -> str | None:
    """The page type as the behaviour model's feature: None when it says nothing."""
    return None if kind in (None, "none", "other") else kind


@dataclass(frozen=True, slots=True)
class Shown:
    """What a page shows, for telling its type when its address and declarations do not: the product it is about
    (its own price, stock or buy button), how many priced products it lists besides, and whether it shows a
    checkout's steps (`shows_checkout_steps`) or asks where to deliver and how to pay (`asks_delivery_and_payment`)."""

    one_product: bool = False
    listed: int = 0
    checkout: bool = False


def classify_page(
    url: str | None,
    names: Sequence[str] = (),
    declared: str | None = None,
    shown: Shown | None = None,
    title: str = "",
) -> PageType:
    """The page type, by the rules in order: Amazon's URLs and OPeRA's names, the platforms' URL shapes, the page's
    own title (`title`: "Your Cart - Shop"), the page's declared product or list (`declared`: "product" or
    "listing"), then what it shows."""
    kind = page_type(url, names)
    if kind == "other":
        kind = url_page_type(url)
    if kind == "other":
        kind = title_page_type(title)
    if kind == "other" and declared in ("product", "listing"):
        kind = "product" if declared == "product" else "search_results"
    if kind == "other" and shown is not None:
        kind = shown_page_type(shown.one_product, shown.listed, shown.checkout)
    return kind


# URL shapes of the common shop platforms and shop-neutral words, checked in this order: (page type, pattern on the
# lower-cased path and query). Magento's cart lives under /checkout/cart, so carts come before checkouts.
_URL_SHAPES: tuple[tuple[PageType, re.Pattern[str]], ...] = (
    (
        "cart",
        re.compile(
            r"(?:^|/)(?:cart|basket|bag|trolley|warenkorb|panier|carrito|carrello|winkelwagen|koszyk)"
            r"(?:/|$|\.|\?)|/checkout/cart(?:/|$)|cart-show|controller=cart\b|/cart\.php"
        ),
    ),
    ("checkout", re.compile(r"checkout|/checkouts/|controller=order\b|/kasse(?:/|$)|/commande(?:/|$)|/onepage")),
    (
        "search_results",
        re.compile(
            r"(?:^|/)(?:search|s|suche|recherche|buscar|catalogsearch)(?:/|$|\?)|search-show|"
            r"controller=search\b|(?:^|[?&])(?:q|k|query|search|keyword|keywords|text)="
        ),
    ),
    (
        "product",
        re.compile(
            r"(?:^|/)(?:product|products|p|dp|item|items|itm)/(?!show\.|list|index|search|all\b)|"
            r"product-show|controller=product\b|/prod/"
        ),
    ),
    (
        "search_results",
        re.compile(
            r"(?:^|/)(?:collections|product-category|category|categories|shop|"
            r"kategorie|categorie|categoria)(?:/|$|\?)|controller=category\b"
        ),
    ),
)


def url_page_type(url: str | None) -> PageType:
    """The page type a URL's shape gives on the common shop platforms (Shopify /products/ and /collections/,
    WooCommerce /product/ and /product-category/, Magento /checkout/cart and /catalogsearch/, Salesforce Commerce
    Cart-Show and Product-Show, PrestaShop ?controller=) and shop-neutral words (checkout; cart, basket, bag; search,
    q=), else "other". The real shop the tests browse is not among them: twins meet it as a shop they never saw."""
    if not url:
        return "other"
    parts = urlparse(url)
    where = parts.path.lower() + ("?" + parts.query.lower() if parts.query else "")
    for kind, pattern in _URL_SHAPES:
        if pattern.search(where):
            return kind
    return "other"


# A page title's part that names a cart or a checkout, whole ("Your Cart - Fire Mountain Gems", "Shop | Shopping
# Cart", "Warenkorb | jpc", "Secure Checkout"), in the shops' main languages. Whole parts only: "Pony Cart Harness" and
# "Chaussures de basket" are products. Bare "basket" (French for basketball), "bag" and "trolley" name products too.
_TITLE_PART = re.compile(r"\s*\|\s*|\s+[-–—:·•»]\s+")  # "Shop|Cart" and "Shop | Cart"; a dash needs spaces
_TITLE_TYPES: tuple[tuple[PageType, re.Pattern[str]], ...] = (
    (
        "cart",
        re.compile(
            r"(?:(?:your|my) (?:shopping )?|shopping )(?:cart|basket|bag|trolley)|cart|"
            r"(?:ihr |mein )?warenkorb|(?:mon |votre )?panier|(?:tu |mi )?(?:carrito|cesta)(?: de (?:la )?compra)?|"
            r"(?:il (?:tuo|mio) )?carrello|(?:je |mijn )?winkel(?:wagen|mand)(?:je)?|(?:twój |mój )?koszyk|"
            r"(?:ваша |моя )?корзина|varukorg|kundvagn|indkøbskurv|handlekurv|ostoskori|(?:váš |můj )?košík|kosár|"
            r"sepetim|alışveriş sepeti|(?:meu |seu )?carrinho(?: de compras)?|coșul meu|coș de cumpărături"  # noqa: RUF001 - Turkish dotless i
        ),
    ),
    (
        "checkout",
        re.compile(
            r"(?:secure |express )?check ?out|(?:zur )?kasse|caisse|paiement|finaliser (?:ma |la |votre )?commande|"
            r"finalizar (?:compra|pedido)|tramitar pedido|cassa|afrekenen|kassa|kassan|zamówienie|"
            r"оформление заказа|pagamento"
        ),
    ),
)


def title_page_type(title: str) -> PageType:
    """A cart or a checkout by what the page's title calls it, one whole part of it; else "other"."""
    parts = [p.strip(" .!").casefold() for p in _TITLE_PART.split(title or "")]
    for kind, pattern in _TITLE_TYPES:
        if any(pattern.fullmatch(p) for p in parts):
            return kind
    return "other"


def shown_page_type(one_product: bool, priced_products: int, checkout: bool = False) -> PageType:
    """What a page Amazon's rules and the URL leave as "other" shows: a checkout's steps, or the questions only a
    checkout asks, make a checkout; one product (its own price, stock or buy button) is a product page, two or more
    priced products a listing (search results or a category)."""
    if checkout:
        return "checkout"
    if one_product:
        return "product"
    return "search_results" if priced_products >= 2 else "other"


# The steps of a checkout as its progress bar names them, each an item of its own ("Panier", "Identification",
# "Livraison", "Paiement", "Validation"), in the shops' main languages. Whole items only: "Free delivery" and
# "Secure payment" are a product page's promises, not steps.
_CHECKOUT_STAGES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (stage, re.compile(pattern))
    for stage, pattern in (
        (
            "cart",
            r"(?:your |shopping )?(?:cart|basket|bag)|(?:ihr )?warenkorb|(?:votre |mon )?panier|carrello|carrito|"
            r"cesta|carrinho|winkel(?:wagen|mand)|koszyk",
        ),
        (
            "account",
            r"sign[ -]?in|log[ -]?in|(?:your )?(?:account|details|information)|identification|anmeld(?:en|ung)|"
            r"(?:ihre )?daten|kundendaten|identificazione|accesso|dati|identificación|identificação|(?:tus )?datos|"
            r"inloggen|(?:uw )?gegevens|logowanie|dane",
        ),
        (
            "delivery",
            r"(?:delivery|shipping)(?: (?:address|details|method|options?))?|(?:adresse de )?livraison|adresses?|"
            r"(?:liefer)?adresse|lieferung|versand(?:art)?|spedizione|consegna|indirizzo|env[ií]o|entrega|"
            r"direcci[oó]n|endereço|bezorg(?:ing|en)|verzending|dostawa|adres",
        ),
        (
            "payment",
            r"payment(?: method)?|(?:mode de )?(?:paiement|règlement)|(?:be)?zahlung(?:sart)?|pagamento|pago|"
            r"betaling|betalen|płatność",
        ),
        (
            "review",
            r"(?:order )?(?:review|summary|confirmation)|confirm(?: order)?|validation|récapitulatif|bestätigung|"
            r"(?:überprüfen und )?bestellen|übersicht|zusammenfassung|conferma|riepilogo|confirmaci[oó]n|resumen|"
            r"confirmação|revisão|bevestig(?:ing|en)|controleren|overzicht|podsumowanie|potwierdzenie",
        ),
    )
)
_STEP_NUMBER = re.compile(
    r"^(?:(?:step|étape|etape|schritt|passo|paso|etapa|stap|krok)\s*)?\d{1,2}\s*[.):/-]?\s*|[>›»→:]+$"
)
_CHECKOUT_STEP_TEXT = 40  # longer text is not a step's name


def _stage(text: str) -> str | None:
    item = _STEP_NUMBER.sub("", text.strip().casefold()).strip(" .>›»→:-")
    if not item or len(item) > _CHECKOUT_STEP_TEXT:
        return None
    return next((stage for stage, pattern in _CHECKOUT_STAGES if pattern.fullmatch(item)), None)


def shows_checkout_steps(texts: Iterable[str]) -> bool:
    """Whether a page's text items, in order, hold a checkout's progress bar: three or more of its steps one after
    the other (a step's number may stand between them), among them payment and the cart or the final review (a
    footer's "Information, Delivery, Payment" links are not a checkout)."""
    run: set[str] = set()
    for text in texts:
        if not text.strip() or text.strip().isdigit():
            continue
        stage = _stage(text)
        if stage is None:
            run = set()
            continue
        run.add(stage)
        if len(run) >= 3 and "payment" in run and run & {"cart", "review"}:
            return True
    return False


# What a delivery form asks, in the shops' main languages, read from a field's label and name.
_DELIVERY_FIELDS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern)
    for pattern in (
        r"\b(?:(?:first|last|full|given|family|sur) ?)?name\b|\b(?:nome|cognome|nom|pr[ée]nom|vorname|nachname|"
        r"nombre|apellidos?|naam|achternaam|imi[eę]|nazwisko)\b",
        r"\b(?:address|street|indirizzo|adresse|stra(?:ß|ss)e|direcci[oó]n|calle|endere[cç]o|morada|adres|ulica)\b",
        r"\b(?:post ?code|postal|zip|cap|code postal|plz|postleitzahl|c[oó]digo postal|kod pocztowy)\b",
        r"\b(?:city|town|citt[aà]|ville|stadt|ort|ciudad|cidade|localit[aà]|(?:woon)?plaats|miasto|miejscowo[sś][cć])\b",
        r"\b(?:phone|telephone|mobile|tel|telefon[oe]?|t[ée]l[ée]phone|tel[ée]fono|telefoon|cellulare|handy)\b",
    )
)
# Ways to pay a checkout offers as choices.
_PAYMENT_CHOICE = re.compile(
    r"\b(?:paypal|credit card|debit card|carte (?:bancaire|de cr[ée]dit|bleue)|carta di credito|carte di credito|"
    r"kreditkarte|bonifico|virement|[üu]berweisung|transferencia|contrassegno|contre[- ]remboursement|nachnahme|"
    r"contra ?reembolso|cash on delivery|vorkasse|postepay|klarna|boleto|pix|bank transfer|przelew|pobranie|blik)\b"
)


def asks_delivery_and_payment(fields: Iterable[str], choices: Iterable[str]) -> bool:
    """Whether a page's form asks where to deliver (four of a name, a street address, a postcode, a city and a
    phone, read from its fields' labels and names) and offers ways to pay among its choices: what a checkout asks,
    and neither a sign-up (no payment) nor a product page (no address)."""
    asked = " | ".join(fields).casefold()
    if sum(bool(pattern.search(asked)) for pattern in _DELIVERY_FIELDS) < 4:
        return False
    return any(_PAYMENT_CHOICE.search(choice.casefold()) for choice in choices)


# An order confirmation, on any shop: the page a shop shows once an order is placed.
_CONFIRMATION_PATH = re.compile(
    r"thank[-_]?you|order[-_]?(?:confirmation|confirmed|received|complete|completed|placed|success)|"
    r"(?:^|/)confirmation(?:/|$|\.)|checkout/(?:[^/]+/)?(?:success|complete|completed|done)(?:/|$|\.)"
)
_CONFIRMATION_TEXT = re.compile(
    r"thank(?:s| you) for (?:your|the) (?:order|purchase)|your order (?:has been|was|is) (?:placed|received|"
    r"confirmed|complete)|order (?:confirmed|placed|received)\b|your order number is|"
    r"order (?:number|no\.?|#)\s*(?:is\s*)?[:#]?\s*#?[a-z]*\d"
)
_CONFIRMED = re.compile(r"confirm|placed|received|complete")
_THANKS = re.compile(r"thank(?:s| you)")
_YOUR_ORDER = re.compile(r"\byour order\b|\border (?:number|no\.?|#)")


def is_order_confirmation(url: str | None, title: str = "", text: str = "") -> bool:
    """The page a shop shows once an order is placed, in shop-neutral words: its address (thank-you,
    order-confirmation, order-received, checkout/success), a title that confirms an order (or thanks, on a page about
    an order), or text that says the order was placed or gives its number. A checkout's step list ("5. Confirmation")
    is not enough."""
    path = urlparse(url).path.lower() if url else ""
    if _CONFIRMATION_PATH.search(path):
        return True
    title, text = title.lower(), text.lower()
    if _CONFIRMATION_TEXT.search(text) or _CONFIRMATION_TEXT.search(title):
        return True
    if "order" in title and _CONFIRMED.search(title):
        return True
    return bool(_THANKS.search(title)) and _YOUR_ORDER.search(text) is not None
