"""Whether the twins could see the difference between the variants, before anyone reads a p-value.

A result that says "no difference" must say whether the twins could see one. The chosen brain consumes a
known part of each page: the embedded brain its page facts, title and the candidates' names, kinds, click
types and texts; an LLM the page block of its prompt, after the facts block and the candidate list are cut
to the prompt's budget. When every variant gives the brain the same input at every page, the variants are
indistinguishable to the twins and any difference in outcomes is noise; the experiment says so.
"""

from __future__ import annotations

import hashlib

from agent.brains.names import BrainName
from agent.experiments.pages import ResolvedPage
from agent.llm.page_block import page_block
from agent.page.observation import Observation


def brain_input(observation: Observation, brain: str) -> str:
    """What the brain reads of a page, as text (equal text: the brain cannot tell two pages apart)."""
    if brain == BrainName.LLM:
        return page_block(observation)
    if brain != BrainName.EMBEDDED:  # the baselines (repeat-previous, majority) do not read the page at all
        return ""
    candidates = "\n".join(f"{c.name}|{c.kind}|{c.click_type}|{c.text}" for c in observation.candidates)
    return f"{observation.page_type}\n{observation.title}\n{observation.facts!r}\n{candidates}"


def _digest(observation: Observation, brain: str) -> str:
    return hashlib.sha256(brain_input(observation, brain).encode()).hexdigest()


def visibility(pages: dict[str, list[ResolvedPage]], variant_names: list[str], brain: str) -> dict:
    """{distinguishable: True/False/None, per variant: the pages (1-based) whose input differs from control}.
    None when some variants are live and some are pages (when all are live, agent/experiments/live_sights.py
    compares what the twins were shown while they browsed)."""
    if any(name not in pages for name in variant_names):
        return {
            "distinguishable": None,
            "brain": brain,
            "note": "a live variant against a page variant: their pages cannot be compared step by step",
        }
    control, *others = variant_names
    reference = [_digest(page.observation, brain) for page in pages[control]]
    differing: dict[str, list[int]] = {}
    for name in others:
        seen = [_digest(page.observation, brain) for page in pages[name]]
        differing[name] = [
            i + 1
            for i in range(max(len(seen), len(reference)))
            if i >= len(seen) or i >= len(reference) or seen[i] != reference[i]
        ]
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
