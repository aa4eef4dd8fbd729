"""Finding one decision of one persona in a run's export: by its id, by variant, instance and step, or, with
only a run named, the one closest to what is asked.

Without a step, a twin run's last decision is meant: the one that bought, left, or ended the visit, which is
what "why did you leave?" asks about. With several twin runs left to choose from (no variant or instance
given), the one whose rationale is closest in meaning to the question is chosen (the first one without an
embedder), and the answer names which it was.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Embed = Callable[[list[str]], np.ndarray]


class DecisionNotFound(LookupError):
    """No decision of this persona in the run matches the reference; the message says what was looked for."""


def _run_key(row: dict) -> tuple:
    return (row.get("variant"), row.get("instance"))


def find_decision(
    rows: list[dict],
    persona_id: str,
    *,
    decision_id: str | None = None,
    variant: str | None = None,
    instance: int | None = None,
    step: int | None = None,
    question: str | None = None,
    embed: Embed | None = None,
) -> dict:
    """The export row meant; raises DecisionNotFound."""
    own = [row for row in rows if row.get("persona_id") == persona_id]
    if not own:
        raise DecisionNotFound(f"persona '{persona_id}' made no decision in this run")
    if decision_id is not None:
        for row in own:
            if row["decision_id"] == decision_id:
                return row
        raise DecisionNotFound(f"no decision '{decision_id}' of persona '{persona_id}' in this run")
    wanted = [
        row
        for row in own
        if (variant is None or row.get("variant") == variant) and (instance is None or row.get("instance") == instance)
    ]
    if not wanted:
        variants = sorted({str(row.get("variant")) for row in own})
        raise DecisionNotFound(
            f"persona '{persona_id}' has no decision with variant={variant!r}, instance={instance!r} "
            f"in this run (its variants: {', '.join(variants)})"
        )
    by_run: dict[tuple, list[dict]] = {}
    for row in wanted:
        by_run.setdefault(_run_key(row), []).append(row)
    candidates = []
    for run_rows in by_run.values():
        run_rows.sort(key=lambda row: row["step"])
        if step is None:
            candidates.append(run_rows[-1])
        else:
            candidates += [row for row in run_rows if row["step"] == step]
    if not candidates:
        raise DecisionNotFound(
            f"persona '{persona_id}' took no step {step} there (its runs have "
            f"{max(len(r) for r in by_run.values())} step(s) at most)"
        )
    candidates.sort(key=lambda row: (str(row.get("variant")), row.get("instance") or 0))
    if len(candidates) == 1 or not question or embed is None:
        return candidates[0]
    vectors = embed([question] + [row.get("rationale") or "" for row in candidates])
    scores = vectors[1:] @ vectors[0] / (np.linalg.norm(vectors[1:], axis=1) * np.linalg.norm(vectors[0]) + 1e-9)
    return candidates[int(np.argmax(scores))]
