"""Checking a spec's `targets` against the names its variant pages have, before any twin runs.

A target counts clicks on the element of that name or anything under it (`deal_banner` covers
`deal_banner.add_to_cart`; see `target_clicks` in the runner), so a misspelt one (`add_to_crat`) would be
reported as a 0.0% click rate that looks like a finding. On page variants every name is known up front,
so an unknown target is a SpecError with the closest names there are. Live variants' pages are known only
while browsing: a target missing from the page variants can still appear there, so it is only noted.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from agent.experiments.spec import ExperimentSpec, SpecError

MAX_SUGGESTIONS = 5


def known(target: str, names: Iterable[str]) -> bool:
    """The runner's rule: the element itself, or an element under it."""
    return any(name == target or name.startswith(target + ".") for name in names)


def check_targets(spec: ExperimentSpec, names_by_variant: dict[str, set[str]]) -> list[str]:
    """SpecError for a target no page variant has (when there are no live variants); else notes, one per target
    that only a live variant's pages could have."""
    names = set().union(*names_by_variant.values()) if names_by_variant else set()
    unknown = [t for t in spec.targets if not known(t, names)]
    if not unknown:
        return []
    if spec.live_variants:
        live = ", ".join(f"'{n}'" for n in spec.live_variants)
        where = (
            "the page variants' pages" if names_by_variant else "the pages known before the run (every variant is live)"
        )
        return [
            f"target '{t}' is on none of {where}; the live variant(s) {live} are browsed, so whether their pages "
            "have it is known only at run time (a target no twin met reads as a 0% click rate)"
            for t in unknown
        ]
    variants = ", ".join(names_by_variant)
    raise SpecError("; ".join(_unknown_message(t, names, variants) for t in unknown))


def _unknown_message(target: str, names: set[str], variants: str) -> str:
    closest = suggestions(target, names)
    hint = f"closest: {', '.join(closest)}; " if closest else ""
    groups = sorted({name.split(".", 1)[0] for name in names})
    shown = ", ".join(groups[:15]) + (f" and {len(groups) - 15} more" if len(groups) > 15 else "")
    return (
        f"target '{target}' names no element on the pages of variants {variants} (a target is an element "
        f"name or a dotted prefix of one); {hint}available: {shown}"
    )


def suggestions(target: str, names: Iterable[str]) -> list[str]:
    """Valid targets (names and their dotted prefixes) closest to `target`, also matching on their last parts,
    so `add_to_crat` finds `buybox.purchase_form.add_to_cart`."""
    candidates: set[str] = set()
    for name in names:
        parts = name.split(".")
        candidates.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    by_tail: dict[str, set[str]] = {}
    for candidate in candidates:
        parts = candidate.split(".")
        for i in range(len(parts)):
            by_tail.setdefault(".".join(parts[i:]), set()).add(candidate)
    found: list[str] = []
    for match in difflib.get_close_matches(target, by_tail, n=MAX_SUGGESTIONS, cutoff=0.6):
        for candidate in sorted(by_tail[match], key=lambda c: (c != match, len(c), c)):
            if candidate not in found:
                found.append(candidate)
    return found[:MAX_SUGGESTIONS]
