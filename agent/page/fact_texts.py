"""The words shops use for prices, stars, delivery, stock and deals, read from one product's text.

Each reader takes the folded text of one product's block (a search result, a buy box), never the whole
page, so a phrase is credited to the product it stands in. The phrases are first amazon.com's, as they appear in
OPeRA's simplified pages (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) and in raw pages, then the same
statements in the main languages of the shops in the data (German, French, Spanish, Italian, Dutch, Portuguese,
Polish, Russian, the Nordic languages); amounts in any currency and locale come from agent/page/money.py.
"""

from __future__ import annotations

import re

from agent.page.facts_model import Availability
from agent.page.money import Money, find_money

# Just before a struck-through amount: "List Price:", "Was", "Typical price", "RRP", "UVP", "statt", "au lieu de",
# "prix conseillé", "antes", "prima", "было", "Compare at", "Reg".
_LIST_LABEL = re.compile(
    r"(?:\b(?:list price|list|was|typical price|typical|rrp|uvp|statt|compare at|reg\.?|"
    r"regular price|au lieu de|prix conseillé|avant|antes|precio anterior|prima|prezzo consigliato|"
    r"van|adviesprijs|cena regularna|förr|før|ord\.? pris|было|старая цена)|ovp)\s*:?\s*$"
)
# Just before the amount to pay: "Price:", "Now", "Your price", "Preis", "Prix", "Precio", "Prezzo", "Prijs", "Cena",
# "Цена", "Pris", "Hinta".
_PAY_LABEL = re.compile(
    r"\b(?:price|now|preis|jetzt|nur|prix|precio|ahora|prezzo|prijs|nu|cena|pris|hinta|preço|"
    r"цена|сейчас)\s*:?\s*$"
)
# Between an old price and the new one: its discount ("-50%", "(-30%)"; a hyphen, en dash or minus sign).
_DISCOUNT_BETWEEN = re.compile(r"\s*\(?\s*[-\u2013\u2212]\s?(\d{1,2})\s?%\s*\)?\s*")
_RATING = re.compile(r"\b([0-5](?:\.\d)?) out of 5(?: stars)?\b", re.IGNORECASE)
_COUNT = re.compile(
    r"\(?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\s*(?:global\s+)?(ratings?|reviews?|customer reviews?))?\s*\)?", re.IGNORECASE
)
_COUNT_BEFORE = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)\s+(?:global\s+)?(?:customer\s+)?$")  # before "ratings"
_COUNT_WORDS = ("rating", "review")
_COUNT_AFTER_STARS = re.compile(r"\(\s*(\d{1,3}(?:,\d{3})+|\d+)\s*\)")
# Patterns searched in lower-cased text start with a literal: Python's re then skips ahead fast.
_FREE_DELIVERY = re.compile(
    r"free\s+(?:\w+\s+){0,2}?(?:delivery|shipping)\b|kostenlose[rn]?\s+(?:versand|lieferung)|"
    r"versandkostenfrei|gratis\s+(?:versand|verzending|levering)|livraison\s+(?:gratuite|offerte)|"
    r"envío\s+gratis|spedizione\s+gratuita|bezpłatna\s+dostawa|darmowa\s+dostawa|"
    r"бесплатная\s+доставка|fri\s+frakt|gratis\s+fragt|ilmainen\s+toimitus|frete\s+grátis"
)
_DELIVERY_AFTER_FEE = re.compile(
    r"\s+(?:delivery|shipping|versand|lieferung|livraison|envío|spedizione|verzending|"
    r"dostawa|доставка|frakt|fragt)\b"
)
_DAYS_BEFORE = re.compile(r"\b(?:in|within)\s+(\d{1,2})(?:\s*-\s*\d{1,2})?\s+(?:business\s+)?$")  # before "day"
_WORD_DAYS = (("today", 0), ("tomorrow", 1), ("overnight", 1))
_DELIVERY_WORDS = (
    "delivery",
    "shipping",
    "arrives",
    "get it",
    "versand",
    "lieferung",
    "livraison",
    "envío",
    "spedizione",
    "verzending",
    "levering",
    "dostawa",
    "доставка",
    "frakt",
    "fragt",
    "toimitus",
    "frete",
)
_WINDOW = 120  # characters around the delivery words that can hold the promise
# "Unavailable" on its own is a stock line too (it is what some shop platforms print for no stock), unless it is
# about something else: "delivery unavailable", "some sizes unavailable", "unavailable in your area".
_UNAVAILABLE = re.compile(
    r"\b(?:(?:currently|temporarily|item|product|is) unavailable|(?:temporarily )?out of stock|"
    r"sold out|no longer available|not available|"
    r"(?<!delivery )(?<!shipping )(?<!pickup )(?<!sizes )(?<!colors )(?<!colours )(?<!options )"
    r"(?<!styles )unavailable(?!\s+(?:to|for|in|at|on|with|from|during|until|online)\b))\b",
    re.IGNORECASE,
)
_LOW_STOCK = re.compile(r"\bonly\s+(\d+)\s+left\s+in\s+stock\b", re.IGNORECASE)
# A bare "Available" is a stock line too ("$22.00 Available"), unless it says when or how ("available soon",
# "available for pre-order") or denies it (read as unavailable above).
_IN_STOCK = re.compile(
    r"\bin stock\b|\bships (?:same day|today)\b|\bready to ship\b|"
    r"(?<!not )(?<!no longer )\bavailable\b(?!\s+(?:soon|from|on|to|for|in|at|after|until|only)\b)",
    re.IGNORECASE,
)
_SPONSORED = re.compile(r"\bsponsored\b", re.IGNORECASE)
# (badge, words one of which it needs, its pattern): the words are a cheap test before the pattern.
_BADGES: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    ("best_seller", ("seller",), re.compile(r"\bbest\s?seller\b", re.IGNORECASE)),
    (
        "amazons_choice",
        ("choice", "overall pick"),
        re.compile(r"\bamazon'?s\s+choice\b|\boverall pick\b", re.IGNORECASE),
    ),
    ("limited_time_deal", ("deal",), re.compile(r"\blimited[\s-]time deal\b", re.IGNORECASE)),
    (
        "deal",
        ("deal",),
        re.compile(
            r"\b(?:lightning deal|deal of the day|today'?s deal|prime (?:day|big deal days?) deal|"
            r"(?<!limited time )(?<!limited-time )deal)\b",
            re.IGNORECASE,
        ),
    ),
    ("coupon", ("coupon",), re.compile(r"\bcoupon\b", re.IGNORECASE)),
)


def parse_price(text: str, hint: str | None = None) -> float | None:
    """The first amount of money in `text`, any currency ("$1,299.99" -> 1299.99, "1.299,00 €" -> 1299.0)."""
    money = first_price(text, hint)
    return money.amount if money else None


def first_price(text: str, hint: str | None = None) -> Money | None:
    found = find_money(text, hint)
    return found[0] if found else None


def list_price(text: str, hint: str | None = None) -> Money | None:
    """The struck price a shop labels "List Price:", "Was:", "Typical price", "RRP", "UVP", "statt" ..., or that
    its discount follows ("EUR219.99 -50% EUR110.00")."""
    found = find_money(text, hint)
    for at, money in enumerate(found):
        if _LIST_LABEL.search(text[max(0, money.start - 20) : money.start].lower()) or _was_before_discount(
            text, found, at
        ):
            return money
    return None


def _was_before_discount(text: str, found: list[Money], at: int) -> bool:
    """The amount is the old price its discount follows: "EUR219.99 -50% EUR110.00", "49,90 € -20 % 39,92 €" (the
    next amount, in the same currency, is this one less that share, to the cent or within 1%)."""
    if at + 1 >= len(found):
        return False
    was, now = found[at], found[at + 1]
    between = _DISCOUNT_BETWEEN.fullmatch(text[was.end : now.start])
    if between is None or was.currency != now.currency or now.amount >= was.amount:
        return False
    expected = was.amount * (1 - int(between.group(1)) / 100)
    return abs(expected - now.amount) <= max(0.011, 0.01 * was.amount)


def rating(text: str) -> float | None:
    """Stars from "4.7 out of 5 stars"."""
    match = _RATING.search(text) if "out of 5" in text else None
    return float(match.group(1)) if match else None


def review_count(text: str, bare: bool = False) -> int | None:
    """Reviews from "48,211 ratings" / "2,063 reviews"; with `bare`, also "(48,211)" or "48,211" alone
    (the text of an element that is known to be the review count)."""
    low = text.lower()
    for word in _COUNT_WORDS:
        at = low.find(word)
        while at >= 0:
            match = _COUNT_BEFORE.search(low, max(0, at - 32), at)
            if match:
                return int(match.group(1).replace(",", ""))
            at = low.find(word, at + 1)
    at = low.find("out of 5")
    if at >= 0 and (match := _COUNT_AFTER_STARS.search(low, at + 8, at + 48)):  # "4.5 out of 5 stars (128)"
        return int(match.group(1).replace(",", ""))
    if "no customer reviews" in low or "no reviews" in low or "no ratings" in low:
        return 0
    if bare:
        match = _COUNT.fullmatch(text.strip())
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def delivery(text: str) -> tuple[bool | None, float | None, int | None]:
    """(free, fee, days) from the first delivery phrase: "FREE delivery Tomorrow", "$5.99 delivery Dec 5".

    `days` is the soonest relative promise near a delivery word (today 0, tomorrow / overnight 1, "in 2 days" 2).
    """
    low = text.lower()
    found = [i for i in (low.find(word) for word in _DELIVERY_WORDS) if i >= 0]
    if not found:
        return None, None, None
    start = max(0, min(found) - _WINDOW // 3)
    low = low[start : max(i for i in (low.rfind(word) for word in _DELIVERY_WORDS)) + _WINDOW]
    free_match = _FREE_DELIVERY.search(low)
    paid = next((m for m in find_money(low) if _DELIVERY_AFTER_FEE.match(low, m.end)), None)
    free: bool | None = None
    fee: float | None = None
    if free_match and (paid is None or free_match.start() < paid.start):
        free = True
    elif paid is not None:
        fee = paid.amount
        free = fee == 0.0
    return free, fee, _soonest_day(low)


def _soonest_day(low: str) -> int | None:
    """Days until delivery from "today" / "tomorrow" / "overnight" / "in 2 days" / "within 3-5 business days" /
    "in 2-3 weeks"."""
    days = [promised for word, promised in _WORD_DAYS if word in low]
    at = low.find("day")
    while at >= 0:
        match = _DAYS_BEFORE.search(low, max(0, at - 32), at)
        if match:
            days.append(int(match.group(1)))
        at = low.find("day", at + 3)
    at = low.find("week")
    while at >= 0:  # "in 2-3 weeks": the soonest, in days
        match = _DAYS_BEFORE.search(low, max(0, at - 32), at)
        if match:
            days.append(7 * int(match.group(1)))
        at = low.find("week", at + 4)
    return min(days) if days else None


def availability(text: str) -> tuple[Availability | None, int | None]:
    """("unavailable" | "low_stock" | "in_stock" | None, items left) from the stock line."""
    low = text.lower()
    if (
        "unavailable" in low or "out of stock" in low or "sold out" in low or "no longer" in low or "not avail" in low
    ) and _UNAVAILABLE.search(text):
        return "unavailable", None
    left = _LOW_STOCK.search(text) if "left in stock" in low else None
    if left:
        return "low_stock", int(left.group(1))
    if ("in stock" in low or "ships" in low or "ready to" in low or "available" in low) and _IN_STOCK.search(text):
        return "in_stock", None
    return _other_language_stock(low), None


# The same stock lines in the other languages of the shops in the data; the negative ones are tested first, since
# most contain a positive ("nicht lieferbar", "non disponibile", "нет в наличии"). The positive words are not the
# nouns for availability that a "check availability" link carries (Verfügbarkeit, disponibilità, dostupnosť).
_UNAVAILABLE_ELSEWHERE = re.compile(
    r"nicht\s+(?:mehr\s+)?(?:lieferbar|verfügbar|vorrätig|auf lager|bestellbar)|ausverkauft|vergriffen|derzeit nicht|"
    r"épuisé|rupture de stock|indisponible|plus disponible|"
    r"agotado|sin stock|no disponible|fuera de stock|"
    r"esaurito|non disponibile|"
    r"niet (?:op voorraad|leverbaar|beschikbaar)|uitverkocht|"
    r"esgotado|indisponível|"
    r"niedostępny|brak w magazynie|wyprzedany|"
    r"нет в наличии|нет на складе|распродан|недоступ|"
    r"slutsåld|ej i lager|ikke på lager|udsolgt|utsolgt|loppuunmyyty|ei varastossa|"
    r"stokta yok|tükendi|nedostupn|vyprodáno|není skladem|nie je (?:na )?sklad|vypredan|ni na zalogi|"
    r"nie je možné (?:\w+ )?kúpiť|není možné (?:\w+ )?koupit|"
    r"nav noliktavā|nėra sandėlyje|nincs (?:raktáron|készleten)|stoc epuizat|nu este în stoc|nije dostupno|"
    r"εξαντλήθηκε|μη διαθέσιμο|"
    r"在庫切れ|売り切れ|缺货|无货|غير متوفر|نفدت"
)
_IN_STOCK_ELSEWHERE = re.compile(
    r"auf lager|(?:sofort )?lieferbar|verfügbar(?!keit)|vorrätig|"
    r"en stock|disponible|"
    r"en existencia|"
    r"disponibil[ei]\b|in magazzino|"
    r"op voorraad|leverbaar|"
    r"em estoque|disponível|"
    r"dostępny|w magazynie|"
    r"в наличии|есть на складе|"
    r"i lager|på lager|på lager|varastossa|"
    r"stokta|skladem|skladom|na sklade|na zalogi|dobavljivo|disponibilità immediata|ir noliktavā|yra sandėlyje|"
    r"raktáron|készleten|în stoc|na stanju|dostupno(?!s)|διαθέσιμο|"
    r"在庫あり|有货|现货|متوفر|متاح"
)


def _other_language_stock(low: str) -> Availability | None:
    if _UNAVAILABLE_ELSEWHERE.search(low):
        return "unavailable"
    if _IN_STOCK_ELSEWHERE.search(low):
        return "in_stock"
    return None


def sponsored(text: str) -> bool:
    return "ponsored" in text and _SPONSORED.search(text) is not None


def badges(text: str) -> tuple[str, ...]:
    """Badges and deals shown: best_seller, amazons_choice, limited_time_deal, deal, coupon."""
    low = text.lower()
    if "seller" not in low and "choice" not in low and "pick" not in low and "deal" not in low and "coupon" not in low:
        return ()
    return tuple(badge for badge, keys, pattern in _BADGES if any(k in low for k in keys) and pattern.search(text))


_BRAND = re.compile(
    r"\bvisit the (.{1,60}?) store\b|\bbrand:\s*(.{1,60}?)(?=\s{2}|\s*$|\s+(?:visit|[0-5](?:\.\d)? out of)\b)",
    re.IGNORECASE,
)
_AD_LABEL = re.compile(r"^\s*sponsored\s+ad\s*[-–:]\s*", re.IGNORECASE)


def fold(text: str | None) -> str:
    """Whitespace runs to one space, trimmed (split and join: several times faster than a regex)."""
    return " ".join(text.split()) if text else ""


def brand(text: str) -> str | None:
    """The brand from "Visit the Anker Store" or "Brand: Anker"."""
    low = text.lower()
    match = _BRAND.search(text) if "visit the" in low or "brand:" in low else None
    if not match:
        return None
    return (match.group(1) or match.group(2) or "").strip() or None


def without_ad_label(title: str) -> str:
    """ "Sponsored Ad - PEAK High Top ..." -> "PEAK High Top ..." (search results put the label in the image alt)."""
    return _AD_LABEL.sub("", title)


def labelled_price(text: str, hint: str | None = None) -> Money | None:
    """The first price a page labels as the price ("Price: $165.95", "Your price $12", "Now $9.99",
    "Preis: 29,95 €")."""
    for money in find_money(text, hint):
        if _PAY_LABEL.search(text[max(0, money.start - 16) : money.start].lower()):
            return money
    return None


def leading_price(text: str, hint: str | None = None) -> Money | None:
    """The amount `text` starts with ("$64.00 In stock" -> 64.0, "1.299,00 € inkl. MwSt" -> 1299.0), else None."""
    found = find_money(text[:40], hint)
    return found[0] if found and not text[: found[0].start].strip() else None


def price_to_pay(text: str, hint: str | None = None, skip: re.Pattern[str] | None = None) -> Money | None:
    """The first price in `text` that is not labelled as a list price ("List: $16.24 $12.99" -> 12.99) nor followed by
    its discount ("EUR219.99 -50% EUR110.00" -> 110.00), nor, with
    `skip`, followed by words it matches."""
    found = find_money(text, hint)
    for at, money in enumerate(found):
        if _LIST_LABEL.search(text[max(0, money.start - 20) : money.start].lower()) or _was_before_discount(
            text, found, at
        ):
            continue
        if skip is not None and skip.match(text, money.end):
            continue
        return money
    return None


# An auction's current bid: the amount the page says bids have reached ("$400 5 bids", "£5.50 [3 bids]", "Current
# bid: US $5.50", "Aktuelles Gebot: EUR 12,00"), in the main languages of the shops in the data.
_BIDS_AFTER = re.compile(
    r"\s*[\[(]?\s*\d+\s+(?:bids?|gebote?|offerte|offerta|enchères?|pujas?|ofertas?|ofert[ay]?|lances?)\b", re.IGNORECASE
)
_BID_LABEL = re.compile(
    r"(?:current|highest|leading|winning) bid|aktuelles gebot|höchstgebot|offerta attuale|enchère actuelle|"
    r"puja actual|oferta actual|lance atual|aktualna oferta",
    re.IGNORECASE,
)


def current_bid(text: str, hint: str | None = None) -> Money | None:
    """The first amount `text` shows as an auction's current bid, else None."""
    for money in find_money(text, hint):
        if _BIDS_AFTER.match(text, money.end) or _BID_LABEL.search(text[max(0, money.start - 24) : money.start]):
            return money
    return None
