"""Slugs and unique names: the text-to-name rules that keep names stable across reloads.

OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) names elements with dotted ids whose text parts
are "lower-case text with every run of non-alphanumerics turned into `_`"; we follow that rule exactly.
"""

from __future__ import annotations

import re
import unicodedata

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify(text: str | None, max_len: int | None = None) -> str:
    """OPeRA slug: lower-case, runs of non-alphanumerics -> "_", no leading/trailing "_".

    Accents are folded to ASCII first so "Café" and "Cafe" agree. `max_len` cuts at an underscore
    when one is near, so long product titles keep whole words (used by the generic fallback only:
    Amazon recipes keep the full title, as OPeRA does).
    """
    if not text:
        return ""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _NON_ALNUM.sub("_", folded.lower()).strip("_")
    if max_len is not None and len(slug) > max_len:
        cut = slug[:max_len]
        boundary = cut.rfind("_")
        slug = (cut[:boundary] if boundary >= max_len // 2 else cut).strip("_")
    return slug


class UniqueNames:
    """Hands out names, suffixing repeats `_2`, `_3`, ... in document order.

    The suffix depends only on how many identical names came earlier on the same page, so the same
    page always yields the same names (no counters shared across pages, no randomness).
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._next_suffix: dict[str, int] = {}
        self.in_order: list[str] = []

    def claim(self, name: str) -> str:
        if not name:
            raise ValueError("cannot claim an empty name")
        unique = name
        if unique in self._taken:
            suffix = self._next_suffix.get(name, 2)
            while f"{name}_{suffix}" in self._taken:
                suffix += 1
            self._next_suffix[name] = suffix + 1
            unique = f"{name}_{suffix}"
        self._taken.add(unique)
        self.in_order.append(unique)
        return unique

    def release_last(self, name: str) -> None:
        """Give back the most recent name (an element that turned out empty), so it is not listed."""
        if not self.in_order or self.in_order[-1] != name:
            raise ValueError(f"{name!r} is not the most recently claimed name")
        self.in_order.pop()
        self._taken.discard(name)


def join_name(prefix: str, part: str) -> str:
    """Dotted join that tolerates an empty prefix or part."""
    if not prefix:
        return part
    if not part:
        return prefix
    return f"{prefix}.{part}"
