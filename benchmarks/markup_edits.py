"""Edits of a real shop page made from the page's own markup, for the any-shop page-sensitivity benchmark.

WHY a second set of edits: benchmarks/page_edits.py rewrites prices with a `$` pattern like the one the reader once
used, so an amount the reader cannot see the edit cannot write either, and the two share a blind spot. Here the
amount comes from outside the page (the ground truth of the product-extraction benchmark), every spelling of it the
page uses ("450", "450.00", "1.299,00", "1 299", `"price": "450.00"`, `content="450.00"`) is found in the raw HTML
and rewritten in the same spelling (separator, grouping, decimals). Nothing here imports the reader
(agent/page/money.py, fact_texts.py): whether the twins saw an edit is checked afterwards by re-reading the page.

Each edit returns an `Edit`: the new HTML (None when not applied), how many occurrences it changed per context, and
the reason when it refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

GROUP_SEPARATORS = (",", ".", " ", "\u00a0", "\u202f", "'", "")
DECIMAL_SEPARATORS = (".", ",")
PRICE_KEY = r"[\w-]*(?:price|amount)[\w-]*"  # JSON / JS keys and attribute names that hold a price
QUOTE = r"(?:\"|'|&quot;|\\\")"
# A text node's amount counts as a price when its neighbourhood in the raw HTML says so: a currency or a price class.
PRICE_CONTEXT = re.compile(
    r"price|preis|prix|prezzo|preço|preco|pret|hinta|cena|amount|[£€₹₽$]|\b(?:EUR|GBP|RON|BRL|"
    r"INR|SAR|AED|KZT|RUB|USD|lei|R\$|zł|kr|тг|ر\.س)\b",
    re.IGNORECASE,
)
SKIP_ELEMENTS = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


@dataclass
class Edit:
    html: str | None
    counts: dict[str, int] = field(default_factory=dict)  # context (json / attribute / text) -> occurrences changed
    reason: str | None = None
    detail: dict = field(default_factory=dict)

    @property
    def applied(self) -> bool:
        return self.html is not None

    @property
    def occurrences(self) -> int:
        return sum(self.counts.values())


# --- spellings of an amount --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spelling:
    group: str  # grouping separator ("" when none)
    decimal: str  # decimal separator ("" when no decimals)
    decimals: int  # digits after it

    def write(self, value: Decimal) -> str:
        quantum = Decimal(1).scaleb(-self.decimals)
        value = value.quantize(quantum, rounding=ROUND_HALF_UP)
        whole, _, frac = f"{value:f}".partition(".")
        if self.group:
            whole = f"{int(whole):,}".replace(",", self.group)
        return whole + (self.decimal + frac if self.decimals else "")


def spellings(value: Decimal) -> dict[str, Spelling]:
    """Every way a page may write `value`: text -> its spelling (grouping only from 1,000, decimals 0-2)."""
    out: dict[str, Spelling] = {}
    whole_needed = value == value.to_integral_value()
    one_decimal = value * 10 == (value * 10).to_integral_value()
    for group in GROUP_SEPARATORS:
        if group and value < 1000:
            continue
        for decimal in DECIMAL_SEPARATORS:
            if decimal == group:
                continue
            for decimals in (0, 1, 2):
                if (decimals == 0 and not whole_needed) or (decimals == 1 and not one_decimal):
                    continue
                s = Spelling(group, decimal if decimals else "", decimals)
                out.setdefault(s.write(value), s)
    return out


def _amount_pattern(texts) -> str:
    alternatives = "|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True))
    # bounded by non-digits, and not the tail or head of a longer number ("1.450", "450.50", "450,5")
    return rf"(?<![\d])(?<![\d][.,\u00a0\u202f ])(?:{alternatives})(?![\d])(?![.,]\d)"


def _visible_spans(html: str) -> list[tuple[int, int]]:
    """Text between tags in the body, outside <script> and <style>."""
    hidden = [(m.start(), m.end()) for m in SKIP_ELEMENTS.finditer(html)]
    body = re.search(r"<body\b", html, re.IGNORECASE)
    spans, at = [], body.start() if body else 0
    hidden = [(a, b) for a, b in hidden if b > at]
    for a, b in [*hidden, (len(html), len(html))]:
        for m in re.finditer(r">([^<>]+)<", html[at:a] + "<"):
            spans.append((at + m.start(1), at + m.end(1)))
        at = b
    return spans


def find_amount(html: str, value: Decimal) -> list[tuple[int, int, str]]:
    """(start, end, context) of each place the page writes `value` as a price: JSON/JS keys naming a price or an
    amount, attributes naming one (or `content=` of a price itemprop / meta property), and visible text with a
    currency or a price class within 160 characters before or 60 after."""
    texts = spellings(value)
    amount = _amount_pattern(texts)
    found: dict[int, tuple[int, int, str]] = {}
    json_like = re.compile(
        rf"{QUOTE}?{PRICE_KEY}{QUOTE}?\s*:\s*{QUOTE}?[^\d\"'<>{{}}\[\],:]{{0,8}}?({amount})", re.IGNORECASE
    )
    for m in json_like.finditer(html):
        found.setdefault(m.start(1), (m.start(1), m.end(1), "json"))
    attribute = re.compile(rf"\b{PRICE_KEY}\s*=\s*[\"'][^\"'\d]{{0,8}}?({amount})", re.IGNORECASE)
    for m in attribute.finditer(html):
        found.setdefault(m.start(1), (m.start(1), m.end(1), "attribute"))
    tag_with_price = re.compile(
        r"<(?:meta|span|div|data|p|link|input)\b[^>]*(?:itemprop|property)\s*=\s*[\"'][^\"']*"
        r"(?:price|amount)[^\"']*[\"'][^>]*>",
        re.IGNORECASE,
    )
    for tag in tag_with_price.finditer(html):
        for m in re.finditer(rf"\b(?:content|value)\s*=\s*[\"'][^\"'\d]{{0,8}}?({amount})", tag.group(0)):
            at = tag.start() + m.start(1)
            found.setdefault(at, (at, tag.start() + m.end(1), "attribute"))
    pattern = re.compile(amount)
    for a, b in _visible_spans(html):
        for m in pattern.finditer(html, a, b):
            around = html[max(0, m.start() - 160) : m.start()] + html[m.end() : m.end() + 60]
            if PRICE_CONTEXT.search(around):
                found.setdefault(m.start(), (m.start(), m.end(), "text"))
    return sorted(found.values())


def target_amount(value: Decimal, factor: Decimal, used: list[Spelling]) -> Decimal:
    """value x factor, rounded up to what every spelling the page uses can write (0 decimals: whole units)."""
    decimals = min((s.decimals for s in used), default=2)
    quantum = Decimal(1).scaleb(-decimals)
    return (value * factor).quantize(quantum, rounding=ROUND_CEILING if decimals == 0 else ROUND_HALF_UP)


def scale_price(html: str, price: Decimal, factor: Decimal, list_price: Decimal | None = None) -> Edit:
    """The main product's price (and list price, when given) times `factor`, in every spelling the page uses."""
    texts = spellings(price)
    places = find_amount(html, price)
    if not places:
        return Edit(None, reason=f"the amount {price} is written nowhere in the page's price markup")
    used = [texts[html[a:b]] for a, b, _ in places]
    new_price = target_amount(price, factor, used)
    edits = [(a, b, c, new_price, texts) for a, b, c in places]
    detail = {
        "price": str(price),
        "new_price": str(new_price),
        "factor": str((new_price / price).quantize(Decimal("0.001"))),
        "spellings": sorted({html[a:b] for a, b, _ in places}),
    }
    if list_price is not None and list_price != price:
        list_texts = spellings(list_price)
        list_places = find_amount(html, list_price)
        taken = {(a, b) for a, b, _ in places}
        list_places = [p for p in list_places if (p[0], p[1]) not in taken]
        if list_places:
            new_list = target_amount(list_price, factor, [list_texts[html[a:b]] for a, b, _ in list_places])
            edits += [(a, b, "list_" + c, new_list, list_texts) for a, b, c in list_places]
            detail.update(list_price=str(list_price), new_list_price=str(new_list))
        else:
            detail["list_price_note"] = f"the list price {list_price} is written nowhere in the price markup"
    edits.sort()
    out, at, counts = [], 0, {}
    for a, b, context, new, spelled in edits:
        out += [html[at:a], spelled[html[a:b]].write(new)]
        counts[context] = counts.get(context, 0) + 1
        at = b
    out.append(html[at:])
    html, n = split_amount(price).subn(lambda m: _split_write(m, new_price), "".join(out))
    if n:
        counts["text_split"] = n
    return Edit(html, counts, detail=detail)


def split_amount(value: Decimal) -> re.Pattern:
    """An amount whose cents sit in their own element: "173<sup>34</sup>", "1.759<span>,99</span>"."""
    whole, _, frac = f"{value:.2f}".partition(".")
    grouped = "|".join(
        re.escape(t)
        for t in {whole} | ({f"{int(whole):,}".replace(",", g) for g in ".,  "} if int(whole) >= 1000 else set())
    )
    return re.compile(rf"(?<![\d.,])({grouped})((?:\s*<[^>]+>\s*){{1,2}}[.,]?)({frac})(?![\d])")


def _split_write(m: re.Match, new: Decimal) -> str:
    whole, _, frac = f"{new:.2f}".partition(".")
    group = next((c for c in m.group(1) if not c.isdigit()), "")
    if group:
        whole = f"{int(whole):,}".replace(",", group)
    return whole + m.group(2) + frac


# --- rating, stock, deal -----------------------------------------------------------------------------------------

RATING_VALUE = re.compile(
    rf"{QUOTE}?ratingValue{QUOTE}?\s*:\s*{QUOTE}?([0-5](?:[.,]\d{{1,2}})?)(?![\d])", re.IGNORECASE
)
RATING_ITEMPROP = re.compile(r"<[^>]*itemprop\s*=\s*[\"']ratingValue[\"'][^>]*>", re.IGNORECASE)


def page_rating(html: str) -> str | None:
    """The rating the page declares for its product (JSON-LD or microdata ratingValue), as the page spells it."""
    m = RATING_VALUE.search(html)
    if m:
        return m.group(1)
    tag = RATING_ITEMPROP.search(html)
    if tag:
        content = re.search(r"\bcontent\s*=\s*[\"']([0-5](?:[.,]\d{1,2})?)[\"']", tag.group(0))
        if content:
            return content.group(1)
        text = re.match(r"\s*([0-5](?:[.,]\d{1,2})?)(?![\d])", html[tag.end() : tag.end() + 20])
        if text:
            return text.group(1)
    return None


def rating_down(html: str, to: Decimal = Decimal("1.6")) -> Edit:
    """The page's own rating markup (ratingValue in JSON-LD / microdata, "4.6 out of 5", "4,6/5", aria labels,
    star-bar widths) set to `to` stars."""
    spelled = page_rating(html)
    if spelled is None:
        return Edit(None, reason="the page declares no rating (no ratingValue in JSON-LD or microdata)")
    decimal = "," if "," in spelled else "."
    new = f"{to:f}".replace(".", decimal)
    value = re.escape(spelled)
    bounded = rf"(?<![\d.,]){value}(?![\d])(?![.,]\d)"
    counts: dict[str, int] = {}

    def sub(pattern, repl, text, context, flags=re.IGNORECASE):
        text, n = re.subn(pattern, repl, text, flags=flags)
        if n:
            counts[context] = counts.get(context, 0) + n
        return text

    html = sub(rf"({QUOTE}?ratingValue{QUOTE}?\s*:\s*{QUOTE}?){bounded}", rf"\g<1>{new}", html, "json")
    html = sub(
        rf"(itemprop\s*=\s*[\"']ratingValue[\"'][^>]*\bcontent\s*=\s*[\"']){bounded}", rf"\g<1>{new}", html, "attribute"
    )
    html = sub(
        rf"(\bcontent\s*=\s*[\"']){bounded}([\"'][^>]*itemprop\s*=\s*[\"']ratingValue)",
        rf"\g<1>{new}\g<2>",
        html,
        "attribute",
    )
    html = sub(rf"(itemprop\s*=\s*[\"']ratingValue[\"'][^>]*>\s*){bounded}", rf"\g<1>{new}", html, "text")
    # visible and aria wording: "4.6 out of 5", "4,6 von 5", "4.6 sur 5", "4.6/5", "4.6 din 5", "4.6 de 5"
    html = sub(rf"{bounded}(\s*(?:out of|of|von|sur|su|din|de|/|из|z|/ 5)\s*5)", rf"{new}\g<1>", html, "text")
    if not counts:
        return Edit(None, reason=f"the rating {spelled} was declared but could not be rewritten")
    return Edit(html, counts, detail={"rating": spelled, "new_rating": new})


IN_STOCK = re.compile(r"(https?:)?(//)?(schema\.org/)InStock\b|(?<=[\"'])InStock(?=[\"'])|(?<=schema:)InStock\b")
META_STOCK = re.compile(
    r"(<meta\b[^>]*(?:product:availability|og:availability)[^>]*content\s*=\s*[\"'])"
    r"(?:in stock|instock|available for order)([\"'])",
    re.IGNORECASE,
)
BUY_WORDS = re.compile(
    r"add to (?:cart|basket|bag|trolley)|add to shopping bag|buy (?:it )?now|in den warenkorb|"
    r"ajouter au panier|aggiungi al carrello|añadir al carrito|adicionar ao carrinho|\bcomprar\b|"
    r"lisää ostoskoriin|adaug[aă] [iî]n co[sș]|do košíka|vložiť do košíka|в корзину|"
    r"أضف إلى|add-to-cart|addtocart|add_to_cart|\bbuy-button\b|btn-buy|basket\.php",
    re.IGNORECASE,
)
BUY_ELEMENT = re.compile(r"<(button|a|input)\b([^>]*)>(.*?)(</\1\s*>)?", re.IGNORECASE | re.DOTALL)


def out_of_stock(html: str) -> Edit:
    """schema.org InStock -> OutOfStock (JSON-LD, microdata, meta) and every buy control (a button, link or input
    whose text, value, class, id or name says add to cart / buy, in the shops' languages) disabled and emptied."""
    counts: dict[str, int] = {}
    html, n = IN_STOCK.subn(lambda m: (m.group(1) or "") + (m.group(2) or "") + (m.group(3) or "") + "OutOfStock", html)
    if n:
        counts["availability"] = n
    html, n = META_STOCK.subn(r"\g<1>out of stock\g<2>", html)
    if n:
        counts["availability_meta"] = counts.get("availability_meta", 0) + n
    removed = 0
    out, at = [], 0
    for m in re.finditer(r"<(button|input|a)\b([^>]*)>", html, re.IGNORECASE):
        tag, attributes = m.group(1).lower(), m.group(2)
        if tag == "input":
            inner, end = "", m.end()
        else:
            close = re.compile(rf"</{tag}\s*>", re.IGNORECASE).search(html, m.end())
            if close is None or close.start() - m.end() > 4000:
                continue
            inner, end = html[m.end() : close.start()], close.end()
        words = attributes + " " + re.sub(r"<[^>]+>", " ", inner)
        if not BUY_WORDS.search(words) or m.start() < at:
            continue
        out += [html[at : m.start()], '<span class="buy-removed" aria-hidden="true"></span>']
        at = end
        removed += 1
    out.append(html[at:])
    html = "".join(out)
    if removed:
        counts["buy_controls_removed"] = removed
    if not counts:
        return Edit(None, reason="the page declares no availability and shows no buy control")
    return Edit(html, counts)


def deal(
    html: str, price: Decimal, factor: Decimal = Decimal(2), list_price: Decimal | None = None, currency_text: str = ""
) -> Edit:
    """A list price at `factor` x the price. Where the page already shows a list price (`list_price`), its every
    spelling is rewritten; else a struck one is added, written like the page's first short visible price (its own
    text node, currency and spelling), right after the element that shows that price. `currency_text` is written
    before it when the price's own node and its neighbours show no currency."""
    texts = spellings(price)
    if list_price is not None and list_price != price:
        places = find_amount(html, list_price)
        if places:
            list_texts = spellings(list_price)
            out, at, counts = [], 0, {}
            for a, b, context in places:
                out += [html[at:a], list_texts[html[a:b]].write(price * factor)]
                counts["list_" + context] = counts.get("list_" + context, 0) + 1
                at = b
            out.append(html[at:])
            return Edit(
                "".join(out), counts, detail={"list_price": str(list_price), "new_list_price": str(price * factor)}
            )
    visible = [p for p in find_amount(html, price) if p[2] == "text"]
    short = [
        p for p in visible if len(html[html.rfind(">", 0, p[0]) + 1 : html.find("<", p[1])].strip()) <= p[1] - p[0] + 12
    ]
    if not short:
        return Edit(
            None,
            reason=f"the price {price} is not written on its own in the page's visible text"
            + (" (its cents sit in their own element)" if split_amount(price).search(html) else ""),
        )
    start, end, _ = short[0]
    node_start = html.rfind(">", 0, start) + 1
    node_end = html.find("<", end)
    spelled = texts[html[start:end]]
    shown = html[node_start:start] + spelled.write(price * factor) + html[end:node_end]
    if not PRICE_CONTEXT.search(re.sub(r"\d", "", shown)):  # the currency sits in a sibling element: copy it
        before = re.sub(r"<[^>]+>", " ", html[max(0, node_start - 300) : node_start]).split()
        symbol = next((w for w in reversed(before) if PRICE_CONTEXT.fullmatch(w)), "")
        shown = (symbol + shown) if symbol else f"{currency_text} {shown}".strip()
    close = html.find(">", html.find("</", end)) + 1
    insert = f' <s class="price-was" aria-label="was">{shown.strip()}</s>'
    return Edit(
        html[:close] + insert + html[close:],
        {"text": 1},
        detail={"list_price": str(price * factor), "shown": shown.strip()},
    )
