"""The product a page declares for machines: schema.org Product / Offer / AggregateRating in JSON-LD, microdata or
RDFa, and OpenGraph product tags.

Most shops, whatever their platform, language or currency, state the product a page is about, its price, currency
and stock in structured data for search engines; it is the one reading that needs no knowledge of the shop's layout
or language, so it comes first (the visible page fills in what it leaves out, agent/page/facts.py). JSON-LD is read
from its script elements directly (the cheapest and most common form); microdata and RDFa by `extruct` (Zyte's
library, BSD-3-Clause), and only when the page carries their attributes, since they need a second parse.

A page that declares a list of products (an ItemList, or several priced products and none it is about) is a listing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from agent.page.money import currency_code, parse_amount

_PRODUCT_TYPES = frozenset(
    {"product", "productgroup", "productmodel", "individualproduct", "someproducts", "book", "vehicle", "car", "offer"}
)
_LIST_TYPES = frozenset({"itemlist", "offercatalog", "searchresultspage", "collectionpage"})
_NOT_THE_PAGE = (
    "isrelatedto",
    "issimilarto",
    "isaccessoryorsparepartfor",
    "isconsumablefor",
    "itemlistelement",
    "hasvariant",
    "review",
    "mentions",
    "about",
)
_IN_STOCK = frozenset(
    {
        "instock",
        "instoreonly",
        "onlineonly",
        "limitedavailability",
        "preorder",
        "presale",
        "backorder",
        "in stock",
        "in_stock",
        "available",
        "true",
        "1",
    }
)
_OUT_OF_STOCK = frozenset(
    {"outofstock", "soldout", "discontinued", "out of stock", "out_of_stock", "oos", "unavailable", "false", "0"}
)
_OG_KEYS = (
    "og:type",
    "og:title",
    "product:price:amount",
    "product:price:currency",
    "og:price:amount",
    "og:price:currency",
    "og:availability",
    "product:availability",
    "product:brand",
    "product:sale_price:amount",
    "product:sale_price:currency",
)
SOURCES = ("json-ld", "microdata", "rdfa", "opengraph")
_SEVERAL = 3  # distinct products declared side by side, none the page's own
_MAX_ITEMS = 200  # a list's declared products carried into the simplified page


@dataclass(frozen=True, slots=True)
class DeclaredProduct:
    """One product as the page declares it; None where it does not say. `source` is the syntax it came from."""

    source: str
    name: str | None = None
    brand: str | None = None
    price: float | None = None
    currency: str | None = None
    availability: str | None = None  # in_stock / unavailable
    rating: float | None = None  # out of 5
    review_count: int | None = None
    url: str | None = None
    sku: str | None = None


@dataclass(frozen=True, slots=True)
class Declared:
    """What a page declares: the product it is about (None when it declares none) and how many it lists."""

    product: DeclaredProduct | None = None
    listed: int = 0
    page_type: str | None = None  # "product", "listing" or None when the declarations do not say
    items: tuple[DeclaredProduct, ...] = ()  # a list's named, priced products (none on a page about one product)


NOTHING_DECLARED = Declared()


def read_declared(raw_html: str, url: str | None = None, tree: LexborHTMLParser | None = None) -> Declared:
    """The declared product of a raw page (structured data first, OpenGraph tags for what it leaves out)."""
    if not raw_html:
        return NOTHING_DECLARED
    tree = tree if tree is not None else LexborHTMLParser(raw_html)
    items = list(_json_ld_items(tree)) if "ld+json" in raw_html else []
    syntaxes = [s for s, marker in (("microdata", "itemscope"), ("rdfa", "typeof=")) if marker in raw_html]
    if syntaxes:
        items += _extruct_items(raw_html, url, syntaxes)
    products, listed, entries = _products(items)
    og = _opengraph(tree)
    heading = tree.css_first("h1")
    about = _about(products, url, " ".join((heading.text(deep=True) or "").split()) if heading is not None else "")
    main = about or _main_product(products)
    if main is None and og is not None and (og.price is not None or og.availability is not None):
        main = og
    elif main is not None and og is not None:
        main = _filled(main, og)
    if listed >= 2 and (main is None or (len(products) > 2 and about is None)):
        return Declared(product=None, listed=listed, page_type="listing", items=_priced(products + entries))
    if about is None and len({p.name for p in products if p.name}) >= _SEVERAL:
        # products side by side and none the page's own: a list, or a product page beside its recommendations;
        # what the page shows tells which (the page's reader takes `items` only where it shows no product of its own)
        return Declared(
            product=og if og is not None and og.price is not None else None,
            listed=len(products),
            items=_priced(products),
        )
    if main is None:
        return Declared(listed=listed)
    return Declared(product=main, listed=listed, page_type="product")


def _about(products: list[DeclaredProduct], url: str | None, heading: str) -> DeclaredProduct | None:
    """The declared product the page is about: the one at the page's address, or the one its heading names."""
    at_page = [p for p in products if url and p.url and _same_page(p.url, url)]
    named = [p for p in products if heading and p.name and p.name.casefold() == heading.casefold()]
    return _best_of(at_page or named) if at_page or named else None


def _filled(main: DeclaredProduct, og: DeclaredProduct) -> DeclaredProduct:
    """The structured data's product with what it leaves out taken from the OpenGraph tags."""
    changes: dict[str, Any] = {}
    if main.price is None and og.price is not None:
        changes.update(price=og.price, currency=og.currency or main.currency)
    if main.currency is None and og.currency is not None and (main.price == og.price or main.price is None):
        changes["currency"] = og.currency
    if main.availability is None and og.availability is not None:
        changes["availability"] = og.availability
    return replace(main, **changes) if changes else main


# --- finding the items ---------------------------------------------------------------------------------------------


def _json_ld_items(tree: LexborHTMLParser) -> Iterator[dict[str, Any]]:
    for node in tree.css('script[type="application/ld+json"], script[type="application/ld+json; charset=utf-8"]'):
        text = node.text(deep=True) or ""
        try:
            data = json.loads(text)
        except ValueError:
            try:
                data = json.loads(text.strip().rstrip(";"), strict=False)
            except ValueError:
                continue
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict):
                graph = item.get("@graph")
                for part in graph if isinstance(graph, list) else [item]:
                    if isinstance(part, dict):
                        yield {**part, "__source": "json-ld"}


def _extruct_items(raw_html: str, url: str | None, syntaxes: list[str]) -> list[dict[str, Any]]:
    import extruct  # lxml and rdflib: loaded only for pages that carry microdata or RDFa

    try:
        found = extruct.extract(raw_html, base_url=url, syntaxes=syntaxes, uniform=True, errors="ignore")
    except Exception:  # noqa: BLE001 - a page extruct cannot read declares nothing; the visible page still reads
        return []
    return [
        {**item, "__source": syntax} for syntax in syntaxes for item in found.get(syntax, []) if isinstance(item, dict)
    ]


def _types(item: dict[str, Any]) -> set[str]:
    kinds = item.get("@type") or ()
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return {str(k).rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1].lower() for k in kinds if k}


def _products(items: list[dict[str, Any]]) -> tuple[list[DeclaredProduct], int, list[DeclaredProduct]]:
    """The products declared at the top level (not related products, variants or list entries), how many
    products the page lists (an ItemList's entries), and the products its longest list's entries declare."""
    products: list[DeclaredProduct] = []
    listed = 0
    entry_products: list[DeclaredProduct] = []
    for item in items:
        kinds = _types(item)
        if kinds & _LIST_TYPES:
            entries = (
                item.get("itemListElement") or (item.get("mainEntity") or {}).get("itemListElement")
                if isinstance(item.get("mainEntity") or {}, dict)
                else item.get("itemListElement")
            )
            if isinstance(entries, list) and len(entries) > listed:
                listed = len(entries)
                entry_products = _entry_products(entries, item["__source"])
        if kinds & _PRODUCT_TYPES or (_is_event(kinds) and _offers(item)):
            product = _product(item, item["__source"])
            if product is not None:
                products.append(product)
    return products, listed, entry_products


def _entry_products(entries: list[Any], source: str) -> list[DeclaredProduct]:
    """The products a list's entries declare (a ListItem's `item`, or the entry itself), where they are products."""
    found = []
    for entry in entries:
        item = entry.get("item") if isinstance(entry, dict) and isinstance(entry.get("item"), dict) else entry
        if isinstance(item, dict) and _types(item) & _PRODUCT_TYPES and (product := _product(item, source)):
            found.append(product)
    return found


def _priced(products: list[DeclaredProduct]) -> tuple[DeclaredProduct, ...]:
    """The named, priced products of a list, each once, at most `_MAX_ITEMS`."""
    seen: dict[tuple[str, float], DeclaredProduct] = {}
    for product in products:
        if product.name and product.price is not None:
            seen.setdefault((product.name, product.price), product)
    return tuple(seen.values())[:_MAX_ITEMS]


def _is_event(kinds: set[str]) -> bool:
    """A schema.org Event or one of its kinds (MusicEvent, TheaterEvent, ScreeningEvent ...): with an offer, its
    tickets are on sale, as a product is."""
    return any(kind.endswith("event") for kind in kinds)


def _product(item: dict[str, Any], source: str) -> DeclaredProduct | None:
    kinds = _types(item)
    offers = [item] if "offer" in kinds and "product" not in kinds else _offers(item)
    variants = item.get("hasVariant")
    if not offers and isinstance(variants, list):  # a ProductGroup: its first variant's offer
        offers = [o for v in variants if isinstance(v, dict) for o in _offers(v)][:1]
    price, currency, availability = _offer_terms(offers)
    rating, count = _rating(item.get("aggregateRating"))
    brand = item.get("brand")
    if isinstance(brand, list):
        brand = brand[0] if brand else None
    if isinstance(brand, dict):
        brand = brand.get("name")
    name = item.get("name")
    if isinstance(name, list):
        name = name[0] if name else None
    return DeclaredProduct(
        source=source,
        name=_text(name),
        brand=_text(brand),
        price=price,
        currency=currency,
        availability=availability,
        rating=rating,
        review_count=count,
        url=_text(item.get("url")),
        sku=_text(item.get("sku")),
    )


def _offers(item: dict[str, Any]) -> list[dict[str, Any]]:
    offers = item.get("offers")
    offers = [offers] if isinstance(offers, dict) else offers if isinstance(offers, list) else []
    flat: list[dict[str, Any]] = []
    for offer in offers:
        if not isinstance(offer, dict):
            continue
        inner = offer.get("offers")  # an AggregateOffer listing its offers, or an offer wrapped in another
        inner = [inner] if isinstance(inner, dict) else inner if isinstance(inner, list) else []
        if inner and offer.get("lowPrice") is None and offer.get("price") is None:
            flat.extend(o for o in inner if isinstance(o, dict))
        else:
            flat.append(offer)
    return flat


def _offer_terms(offers: list[dict[str, Any]]) -> tuple[float | None, str | None, str | None]:
    """Price and currency of the first offer that states a price (an AggregateOffer's low price); in stock when any
    offer is (a size or colour still sold), unavailable when every offer that says so is."""
    price = currency = None
    stocks = set()
    for offer in offers:
        amount, code = _offer_price(offer)
        if amount is not None and price is None:
            price, currency = amount, code
        if stock := _availability(offer.get("availability")):
            stocks.add(stock)
    availability = "in_stock" if "in_stock" in stocks else "unavailable" if stocks else None
    return price, currency, availability


def _offer_price(offer: dict[str, Any]) -> tuple[float | None, str | None]:
    code = _text(offer.get("priceCurrency"))
    amount = parse_amount(_text(offer.get("price")))
    if amount is None:
        low, high = parse_amount(_text(offer.get("lowPrice"))), parse_amount(_text(offer.get("highPrice")))
        amount = low if low is not None and (high is None or high == low or "aggregateoffer" in _types(offer)) else None
    if amount is None:
        specs = offer.get("priceSpecification")
        for spec in [specs] if isinstance(specs, dict) else specs if isinstance(specs, list) else []:
            if isinstance(spec, dict) and (amount := parse_amount(_text(spec.get("price")))) is not None:
                code = code or _text(spec.get("priceCurrency"))
                break
    if amount is not None and amount <= 0:
        amount = None
    return amount, currency_code(code) if code else None


def _availability(value: object) -> str | None:
    text = _text(value)
    if not text:
        return None
    key = text.rstrip("/").rsplit("/", 1)[-1].strip().lower()
    if key in _IN_STOCK:
        return "in_stock"
    if key in _OUT_OF_STOCK:
        return "unavailable"
    return None


def _rating(value: object) -> tuple[float | None, int | None]:
    if isinstance(value, list):
        value = value[0] if value else None
    if not isinstance(value, dict):
        return None, None
    stars = parse_amount(_text(value.get("ratingValue")))
    best = parse_amount(_text(value.get("bestRating"))) or 5.0
    count = parse_amount(_text(value.get("reviewCount"))) or parse_amount(_text(value.get("ratingCount")))
    rating = round(stars * 5.0 / best, 2) if stars is not None and best > 0 and 0 <= stars <= best else None
    return rating, int(count) if count is not None else None


def _text(value: object) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@id") or value.get("name") or value.get("@value")
    if value is None or isinstance(value, (dict, list)):
        return None
    text = " ".join(str(value).split())
    return text or None


def _main_product(products: list[DeclaredProduct]) -> DeclaredProduct | None:
    """The product the page is about when neither its address nor its heading says: the first that states a price
    or stock (shops declare the page's product first), else the first."""
    if not products:
        return None
    ordered = sorted(products, key=lambda p: SOURCES.index(p.source) if p.source in SOURCES else len(SOURCES))
    return _best_of(ordered)


def _best_of(products: list[DeclaredProduct]) -> DeclaredProduct:
    return next((p for p in products if p.price is not None), None) or next(
        (p for p in products if p.availability is not None), products[0]
    )


def _same_page(declared: str, url: str) -> bool:
    a, b = urlsplit(declared), urlsplit(url)
    return a.path.rstrip("/") == b.path.rstrip("/") and (not a.netloc or a.netloc == b.netloc)


def _opengraph(tree: LexborHTMLParser) -> DeclaredProduct | None:
    meta: dict[str, str] = {}
    for node in tree.css("meta[property], meta[name]"):
        key = (node.attributes.get("property") or node.attributes.get("name") or "").strip().lower()
        if key in _OG_KEYS and key not in meta:
            meta[key] = (node.attributes.get("content") or "").strip()
    if not meta:
        return None
    amount = parse_amount(
        meta.get("product:sale_price:amount") or meta.get("product:price:amount") or meta.get("og:price:amount")
    )
    code = (
        meta.get("product:sale_price:currency")
        or meta.get("product:price:currency")
        or meta.get("og:price:currency")
        or ""
    ).strip()
    stock = _availability(meta.get("og:availability") or meta.get("product:availability"))
    if meta.get("og:type", "").lower() not in ("product", "og:product", "product.item") and amount is None:
        return None
    return DeclaredProduct(
        source="opengraph",
        name=meta.get("og:title") or None,
        brand=meta.get("product:brand") or None,
        price=amount if amount and amount > 0 else None,
        currency=currency_code(code) if code else None,
        availability=stock,
    )
