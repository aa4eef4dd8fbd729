"""Whether twins could see the difference between live variants, from what they were actually shown.

A live variant's pages are only known while the twins browse, so every page a twin decided on is kept as a sight:
its address without the host (two instances of a shop differ in port) and a digest of exactly what the brain read
(agent/experiments/visibility.brain_input), with a few readable lines (title, the products' facts, the elements)
to say what differed. The same twin instance browses every variant with the same draws, so its two runs stay in
step until a page differs: for each such pair, the pages at the same step and address are compared in order, and
the first one whose input differs is where the twins could see the difference. When every page both were shown
at the same address read the same, the twins could not see it (a colour, a hidden field, a page they never
reached), and any difference in outcomes is noise.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import urlparse

from agent.brains.names import BrainName
from agent.experiments.visibility import brain_input
from agent.llm.facts_block import product_line
from agent.page.observation import Observation

MAX_EXAMPLES = 5
MAX_LINES = 6

SightKey = tuple[str, str, int]  # (variant, persona id, instance)


@dataclass(frozen=True, slots=True)
class Sight:
    """One page a twin decided on: where (path and query) and what the brain read there."""

    address: str
    digest: str
    lines: tuple[str, ...]


def address_of(url: str | None) -> str:
    parts = urlparse(url or "")
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def sight_of(observation: Observation, brain: str) -> Sight:
    text = brain_input(observation, brain)
    return Sight(
        address=address_of(observation.url),
        digest=hashlib.sha256(text.encode()).hexdigest(),
        lines=readable_lines(observation, brain),
    )


def readable_lines(observation: Observation, brain: str) -> tuple[str, ...]:
    """What a person would call the page's content, as the brain reads it: title, products, elements."""
    if brain not in (BrainName.EMBEDDED, BrainName.LLM):
        return ()
    return (
        f"title: {observation.title}",
        *(f"product: {product_line(p)}" for p in observation.facts.products),
        *(f"element: {c.text or c.name} ({c.click_type})" for c in observation.candidates),
    )


def _first_difference(control: list[Sight], variant: list[Sight]) -> tuple[int, dict | None]:
    """(pages compared, the first page shown at the same step and address whose input differs, else None)."""
    compared = 0
    for step, (a, b) in enumerate(zip(control, variant, strict=False), start=1):
        if a.address != b.address:
            break  # the runs parted without a page telling them apart (the site itself answered differently)
        compared += 1
        if a.digest != b.digest:
            seen_a, seen_b = set(a.lines), set(b.lines)
            only_control = [line for line in a.lines if line not in seen_b]
            only_variant = [line for line in b.lines if line not in seen_a]
            return compared, {
                "step": step,
                "address": a.address,
                "control_only": only_control[:MAX_LINES],
                "variant_only": only_variant[:MAX_LINES],
            }
    return compared, None


def live_visibility(sights: dict[SightKey, list[Sight]], variant_names: list[str], brain: str) -> dict:
    """The `visibility` block for live variants: per variant, how many twin pairs were compared, on how many
    pages, and where (and in what) the first difference they could see was."""
    control, *others = variant_names
    per_variant: dict[str, dict] = {}
    for name in others:
        pairs = pages = seeing = 0
        where: dict[str, int] = {}
        examples: list[dict] = []
        for (variant, persona_id, instance), shown in sorted(sights.items()):
            if variant != name or (control, persona_id, instance) not in sights:
                continue
            compared, difference = _first_difference(sights[(control, persona_id, instance)], shown)
            pairs += 1
            pages += compared
            if difference is not None:
                seeing += 1
                where[difference["address"]] = where.get(difference["address"], 0) + 1
                if len(examples) < MAX_EXAMPLES:
                    examples.append({"persona_id": persona_id, "instance": instance, **difference})
        per_variant[name] = {
            "pairs_compared": pairs,
            "pages_compared": pages,
            "pairs_seeing_a_difference": seeing,
            "visible": (seeing > 0) if pages else None,
            "first_difference_at": dict(sorted(where.items(), key=lambda kv: -kv[1])),
            "examples": examples,
        }
    unseen = [n for n, v in per_variant.items() if v["visible"] is False]
    unknown = [n for n, v in per_variant.items() if v["visible"] is None]
    distinguishable = None if unknown else not unseen
    if unseen:
        note = (
            f"variant(s) {', '.join(unseen)}: on every page the twins were shown at the same address as on "
            f"{control}, the {brain} brain read exactly the same input, so the twins could not see the "
            "difference and any difference in outcomes is noise"
        )
    elif unknown:
        note = (
            f"variant(s) {', '.join(unknown)}: no twin pair was shown a page at the same address on both "
            "variants, so whether the twins could see the difference is not known"
        )
    else:
        note = (
            f"every variant showed the twins something {control} did not, as the {brain} brain reads pages "
            "(see first_difference_at and examples)"
        )
    return {
        "distinguishable": distinguishable,
        "brain": brain,
        "live": True,
        "variants": per_variant,
        "indistinguishable_variants": unseen,
        "note": note,
    }
