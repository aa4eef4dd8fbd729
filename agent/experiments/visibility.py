"""Whether the twins could see the difference between the variants, before anyone reads a p-value: one check for
page and live variants.

A result that says "no difference" must say whether the twins could see one. The chosen brain consumes a known
part of each page: the embedded brain its page facts, title and the candidates' names, kinds, click types and
texts; an LLM the page block of its prompt, after the facts block and the candidate list are cut to the prompt's
budget. Every page is kept as a sight: where it was (the address without the host: two instances of a shop differ
in port), a digest of exactly what the brain read, and a few readable lines (title, the products' facts, the
elements) to say what differed. Two runs are compared step by step while they are at the same address; a step
whose digests differ is where the twins could see the difference.

Page variants are known before the run: each variant's pages, in order, are one run that every twin is shown.
Live variants are only known while the twins browse: the same twin instance browses every variant with the same
draws, so its two runs stay in step until a page differs, and each such pair is compared. When every page read
the same, the twins could not see the difference (a colour, a hidden field, a page they never reached), and any
difference in outcomes is noise; the experiment says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import urlparse

from agent.brains.names import BrainName
from agent.experiments.pages import ResolvedPage
from agent.llm.facts_block import product_line
from agent.llm.page_block import page_block
from agent.page.observation import Observation

MAX_EXAMPLES = 5
MAX_LINES = 6

SightKey = tuple[str, str, int]  # (variant, persona id, instance)


def brain_input(observation: Observation, brain: str) -> str:
    """What the brain reads of a page, as text (equal text: the brain cannot tell two pages apart)."""
    if brain == BrainName.LLM:
        return page_block(observation)
    if brain != BrainName.EMBEDDED:  # the baselines (repeat-previous, majority) do not read the page at all
        return ""
    candidates = "\n".join(f"{c.name}|{c.kind}|{c.click_type}|{c.text}" for c in observation.candidates)
    return f"{observation.page_type}\n{observation.title}\n{observation.facts!r}\n{candidates}"


@dataclass(frozen=True, slots=True)
class Sight:
    """One page a twin decided on: where (path and query) and what the brain read there."""

    address: str
    digest: str
    lines: tuple[str, ...]


def address_of(url: str | None) -> str:
    parts = urlparse(url or "")
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def sight_of(observation: Observation, brain: str, address: str | None = None) -> Sight:
    """The sight of a page; `address` stands in for the page's own (a page variant's pages are compared by
    position, wherever they were read from)."""
    text = brain_input(observation, brain)
    return Sight(
        address=address_of(observation.url) if address is None else address,
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


def differences(control: list[Sight], variant: list[Sight]) -> tuple[int, list[dict]]:
    """(pages compared, every page shown at the same step and address whose input differs), in step order; the
    comparison stops where the runs part (their addresses differ) or the shorter one ends."""
    compared, found = 0, []
    for step, (a, b) in enumerate(zip(control, variant, strict=False), start=1):
        if a.address != b.address:
            break  # the runs parted without a page telling them apart (the site itself answered differently)
        compared += 1
        if a.digest != b.digest:
            seen_a, seen_b = set(a.lines), set(b.lines)
            only_control = [line for line in a.lines if line not in seen_b]
            only_variant = [line for line in b.lines if line not in seen_a]
            found.append(
                {
                    "step": step,
                    "address": a.address,
                    "control_only": only_control[:MAX_LINES],
                    "variant_only": only_variant[:MAX_LINES],
                }
            )
    return compared, found


def visibility(pages: dict[str, list[ResolvedPage]], variant_names: list[str], brain: str) -> dict:
    """Page variants: {distinguishable: True/False/None, per variant: the pages (1-based) whose input differs
    from control}. None when some variants are live and some are pages (when all are live, live_visibility
    compares what the twins were shown while they browsed)."""
    if any(name not in pages for name in variant_names):
        return {
            "distinguishable": None,
            "brain": brain,
            "note": "a live variant against a page variant: their pages cannot be compared step by step",
        }
    runs = {
        name: [sight_of(page.observation, brain, address=f"page {i}") for i, page in enumerate(pages[name], 1)]
        for name in variant_names
    }
    control, *others = variant_names
    differing: dict[str, list[int]] = {}
    for name in others:
        _, found = differences(runs[control], runs[name])
        shorter, longer = sorted((len(runs[control]), len(runs[name])))
        differing[name] = [d["step"] for d in found] + list(range(shorter + 1, longer + 1))  # a page only one has
    same = [name for name, pages_differing in differing.items() if not pages_differing]
    note = (
        f"variant(s) {', '.join(same)} give the {brain} brain exactly the same input as {control} on every page: "
        "the twins cannot see the difference, so any difference in outcomes is noise"
        if same
        else f"every variant differs from {control} in what the {brain} brain reads"
    )
    return {
        "distinguishable": not same,
        "brain": brain,
        "pages_differing": differing,
        "indistinguishable_variants": same,
        "note": note,
    }


def live_visibility(sights: dict[SightKey, list[Sight]], variant_names: list[str], brain: str) -> dict:
    """Live variants: per variant, how many twin pairs were compared, on how many pages, and where (and in what)
    the first difference they could see was."""
    control, *others = variant_names
    per_variant: dict[str, dict] = {}
    for name in others:
        pairs = pages = seeing = 0
        where: dict[str, int] = {}
        examples: list[dict] = []
        for (variant, persona_id, instance), shown in sorted(sights.items()):
            if variant != name or (control, persona_id, instance) not in sights:
                continue
            compared, found = differences(sights[(control, persona_id, instance)], shown)
            pairs += 1
            pages += compared if not found else found[0]["step"]  # pages compared up to the first difference
            if found:
                seeing += 1
                where[found[0]["address"]] = where.get(found[0]["address"], 0) + 1
                if len(examples) < MAX_EXAMPLES:
                    examples.append({"persona_id": persona_id, "instance": instance, **found[0]})
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
