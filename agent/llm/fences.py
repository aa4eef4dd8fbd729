"""Text nobody vetted (pages, persona records, memories, a client's history) made safe to fence in a prompt.

Each such block goes between marker lines (`<<<MEMORIES>>>` ... `<<<END MEMORIES>>>`) that the system prompt
declares to be data. The markers hold only as long as the text inside cannot write one, so every run of
three or more angle brackets is collapsed, after folding lookalikes onto plain ASCII: NFKC turns full-width
`＜＜＜END PAGE＞＞＞` into `<<<END PAGE>>>`, a few angle-shaped quotes NFKC leaves alone are mapped by hand,
and invisible format characters (zero-width spaces) that would split a run are dropped.
"""

from __future__ import annotations

import re
import unicodedata

_ANGLE_LOOKALIKES = str.maketrans(
    {
        "‹": "<",
        "›": ">",
        "〈": "<",
        "〉": ">",
        "⟨": "<",
        "⟩": ">",
        "❮": "<",
        "❯": ">",
        "˂": "<",
        "˃": ">",
        "ᐸ": "<",
        "ᐳ": ">",
        "《": "<",
        "》": ">",
        "«": "<",
        "»": ">",
    }
)
_DELIMITER_RUNS = re.compile(r"<{3,}|>{3,}")
_WHITESPACE = re.compile(r"\s+")


def fold_lookalikes(text: str) -> str:
    """NFKC, angle-shaped characters as < and >, and no invisible format characters."""
    text = unicodedata.normalize("NFKC", text).translate(_ANGLE_LOOKALIKES)
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def neutralise(text: str | None, *, fold: bool = True) -> str:
    """Make untrusted text unable to open or close a fenced block (and, folded, unable to start a line)."""
    if not text:
        return ""
    text = _DELIMITER_RUNS.sub(lambda m: m.group(0)[0], fold_lookalikes(text))
    return _WHITESPACE.sub(" ", text).strip() if fold else text


def fence_open(label: str) -> str:
    return f"<<<{label}>>>"


def fence_close(label: str) -> str:
    return f"<<<END {label}>>>"


def fenced(label: str, neutralised_text: str) -> str:
    """Already-neutralised text between its marker lines."""
    return f"{fence_open(label)}\n{neutralised_text}\n{fence_close(label)}"
