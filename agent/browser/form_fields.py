"""What a form field asks for, on any shop: email, first or last name, address line, city, state, postcode,
country or phone, read from what browsers and people read: its input type, its `autocomplete` token (the HTML
standard's names, which browsers' autofill uses), then the words of its label, aria-label or placeholder, then
those of its own name and id. No shop's class names, ids or URLs.
"""

from __future__ import annotations

import re

# HTML autocomplete tokens (WHATWG "autofill field names") -> field kind.
_AUTOCOMPLETE = {
    "email": "email",
    "given-name": "first_name",
    "family-name": "last_name",
    "name": "full_name",
    "address-line1": "address_line1",
    "street-address": "address_line1",
    "address-line2": "address_line2",
    "address-level2": "city",
    "address-level1": "state",
    "postal-code": "postcode",
    "country": "country",
    "country-name": "country",
    "tel": "phone",
    "tel-national": "phone",
}
# Words -> kind, first match wins: the more specific first (a "second line of address" before an address).
_WORDS: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile(pattern), kind)
    for pattern, kind in (
        (r"\be ?mail\b", "email"),
        (r"\b(?:phone|telephone|mobile|tel)\b", "phone"),
        (r"\b(?:first|given|fore) ?name\b|\bfname\b", "first_name"),
        (r"\b(?:last|family|sur) ?name\b|\blname\b", "last_name"),
        (r"\b(?:post ?code|postal(?: code)?|zip(?: ?code)?)\b", "postcode"),
        (r"\bcountry\b", "country"),
        (r"\b(?:state|county|province|region)\b", "state"),
        (r"\b(?:city|town|locality|suburb)\b", "city"),
        (
            r"\b(?:second|2nd) line\b|\b(?:address )?line ?2\b|\baddress ?2\b|\b(?:apartment|apt|suite|unit)\b",
            "address_line2",
        ),
        (r"\b(?:third|3rd|fourth|4th) line\b|\b(?:address )?line ?[34]\b|\baddress ?[34]\b", "address_line3"),
        (r"\b(?:first|1st) line\b|\b(?:address )?line ?1\b|\baddress ?1\b|\bstreet\b|\baddress\b", "address_line1"),
        (r"^(?:full )?name$|\bfull name\b|\byour name\b", "full_name"),
    )
)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_SEPARATORS = re.compile(r"[\s_\-\[\].:/*()]+")


def words_of(text: str) -> str:
    """'billing_address[line1]' -> 'billing address line1'; 'postCode' -> 'post code'; lower case."""
    return _SEPARATORS.sub(" ", _CAMEL.sub(" ", text or "")).strip().lower()


def own_part(name: str) -> str:
    """A nested field name's own part: 'checkout[shipping_address][company]' -> 'company' (the group's words,
    'shipping address', say where the field is, not what it wants); 'billing.city' -> 'city'."""
    parts = [p for p in re.split(r"[\[\].]+", name or "") if p]
    return parts[-1] if parts else ""


def field_kind(
    input_type: str = "", autocomplete: str = "", label: str = "", name: str = "", element_id: str = ""
) -> str | None:
    """The kind of detail a field asks for, or None when nothing says (the field is left as it is)."""
    input_type = (input_type or "").lower()
    if input_type == "email":
        return "email"
    if input_type == "tel":
        return "phone"
    tokens = (autocomplete or "").lower().split()
    for token in reversed(tokens):  # "shipping address-line1": the last token names the field
        if token in _AUTOCOMPLETE:
            return _AUTOCOMPLETE[token]
    for source in (label, f"{own_part(name)} {own_part(element_id)}"):
        text = words_of(source)
        for pattern, kind in _WORDS:
            if text and pattern.search(text):
                return kind
    return None
