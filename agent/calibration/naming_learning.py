"""Learn element names from the full OPeRA action table (names are absent from the timelines).

Three tables (Wang et al. 2025, arXiv 2506.05606): the name each click type most often has, the name
that most often follows a given element for each next click type, and how often a repeated click type
hits the very same element. Plus name priors: how the next label after a frequent element differs
from what the history-only model expects (a shrunk log-ratio), e.g. typing after a click on the box.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from agent.behaviour.labels import INPUT, LABELS, TERMINATE
from agent.behaviour.names_without_page import STANDARD_NAMES, NamingTables
from agent.calibration.sessions import BehaviourSession, BehaviourStep

MIN_NAME_COUNT = 3
MIN_AFTER_COUNT = 5
MIN_PRIOR_COUNT = 20
PRIOR_STRENGTH = 10.0
PRIOR_CAP = 3.0


def _clicks(session: BehaviourSession) -> list[BehaviourStep]:
    return [s for s in session.steps if s.label not in (INPUT, TERMINATE) and s.name]


def learn_naming(sessions: Sequence[BehaviourSession]) -> NamingTables:
    by_type: dict[str, Counter] = defaultdict(Counter)
    sessions_of_name: dict[str, set[int]] = defaultdict(set)
    after: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    prev_count: Counter = Counter()
    same_type: Counter = Counter()
    same_name: Counter = Counter()
    for number, session in enumerate(sessions):
        steps = [s for s in session.steps if s.name]
        for step in steps:
            if step.label not in (INPUT, TERMINATE):
                assert step.name is not None  # kept above for its name
                by_type[step.label][step.name] += 1
                sessions_of_name[step.name].add(number)
        for previous, step in zip(session.steps, session.steps[1:], strict=False):
            if not previous.name or not step.name or step.label in (INPUT, TERMINATE):
                continue
            prev_count[previous.name] += 1
            after[previous.name][step.label][step.name] += 1
            if previous.label == step.label:
                same_type[step.label] += 1
                same_name[step.label] += previous.name == step.name
    standard = dict(STANDARD_NAMES)
    for click_type, counter in by_type.items():
        # a name used across sessions (not one product's slug) that this click type has most often
        shared = [(n, c) for n, c in counter.most_common() if c >= MIN_NAME_COUNT and len(sessions_of_name[n]) >= 2]
        if shared:
            standard[click_type] = shared[0][0]
    after_table: dict[str, dict[str, str]] = {}
    for name, by_next in after.items():
        if prev_count[name] < MIN_AFTER_COUNT:
            continue
        row = {}
        for click_type, counter in by_next.items():
            best, count = counter.most_common(1)[0]
            if count >= MIN_NAME_COUNT and count / sum(counter.values()) >= 0.3 and len(sessions_of_name[best]) >= 2:
                row[click_type] = best
        if row:
            after_table[name] = row
    repeat_share = {t: same_name[t] / same_type[t] for t in same_type if same_type[t] >= MIN_NAME_COUNT}
    return NamingTables(standard=standard, after=after_table, repeat_share=repeat_share, learned=True)


def learn_name_priors(
    sessions: Sequence[BehaviourSession],
    expected: Callable[[BehaviourSession, int], np.ndarray],
) -> dict[str, dict[str, float]]:
    """prev element name -> label -> shrunk log(observed / expected) next-label frequency."""
    counts: dict[str, Counter] = defaultdict(Counter)
    sums: dict[str, np.ndarray] = {}
    totals: Counter = Counter()
    for session in sessions:
        for t in range(1, len(session.steps)):
            name = session.steps[t - 1].name
            if not name or session.steps[t - 1].label == INPUT:  # priors are about clicked elements (engine.py)
                continue
            counts[name][session.steps[t].label] += 1
            totals[name] += 1
            sums[name] = sums.get(name, np.zeros(len(LABELS))) + expected(session, t)
    priors: dict[str, dict[str, float]] = {}
    for name, n in totals.items():
        if n < MIN_PRIOR_COUNT:
            continue
        mean_expected = np.clip(sums[name] / n, 1e-6, None)
        row = {}
        for i, label in enumerate(LABELS):
            observed = (counts[name][label] + PRIOR_STRENGTH * mean_expected[i]) / (n + PRIOR_STRENGTH)
            value = max(-PRIOR_CAP, min(PRIOR_CAP, math.log(observed / mean_expected[i])))
            if abs(value) >= 0.2:
                row[label] = round(value, 4)
        if row:
            priors[name] = row
    return priors
