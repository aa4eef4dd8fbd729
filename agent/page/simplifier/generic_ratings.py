"""Star ratings a shop draws rather than writes: the value read from a rating widget's attribute or class, or
from a picture of stars (its alt text, else its file name), so the generic fallback can say "4.5 out of 5 stars".

Its own module because each shop spells a rating its own way and the patterns grow with the shops seen.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from agent.page.simplifier.dom import fold

RATING_VALUE = re.compile(r"[0-5](?:\.\d{1,2})?")
STARS_ALT = re.compile(r"([0-5](?:\.\d)?)\s+out\s+of\s+5\s+stars?", re.IGNORECASE)
STARS_FILE = re.compile(r"(?:^|[-_])stars?[-_]?([0-5])(?:[-_]([05]))?$", re.IGNORECASE)
RATING_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
RATING_CLASS = re.compile(r"(?:star[-_]?)?rating[-_]([0-5])(?:[-_](5))?")


def _rating_attribute(attrs: dict[str, str | None]) -> str | None:
    """The value of a rating widget's `rating` / `data-rating` / `data-score` attribute when it is 0-5."""
    for key in ("rating", "data-rating", "data-score", "data-stars"):
        value = (attrs.get(key) or "").strip()
        if RATING_VALUE.fullmatch(value) and float(value) <= 5:
            return value
    return None


def _rating_class(attrs: dict[str, str | None]) -> str | None:
    """The value a rating widget's class gives it, as shops whose stylesheet draws the stars name it:
    `star-rating Four`, `rating-4`, `rating-4-5` (4.5)."""
    for token in (attrs.get("class") or "").lower().split():
        if token in RATING_WORDS:
            return RATING_WORDS[token]
        if found := RATING_CLASS.fullmatch(token):
            whole, half = found.groups()
            return f"{whole}.5" if half and whole != "5" else whole
    return None


def _star_picture(attrs: dict[str, str | None]) -> str | None:
    """The rating a picture of stars shows: from its alt text ("4.5 out of 5 stars") or, when it has none,
    from its file name as older shops name them (stars_5.gif, stars-4-5._V1_.gif -> "4.5")."""
    alt = fold(attrs.get("alt"))
    if alt:
        found = STARS_ALT.search(alt)
        return found.group(1) if found else None
    stem = urlparse(attrs.get("src") or "").path.rsplit("/", 1)[-1].split(".", 1)[0]
    if not (found := STARS_FILE.search(stem)):
        return None
    whole, half = found.groups()
    value = f"{whole}.{half}" if half == "5" else whole
    return value if float(value) <= 5 else None
