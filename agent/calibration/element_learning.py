"""Fit the within-page element-choice weights on real choices (full OPeRA release, pages included).

For each recorded click or input whose page is known and whose element is among the page's
candidates of the same type, the candidates of that type form a choice set; a conditional logit over
element_choice.ELEMENT_FEATURES is fitted by L-BFGS with a small L2 penalty toward the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize

from agent.behaviour.element_choice import DEFAULT_WEIGHTS, ELEMENT_FEATURES, build_intent, element_features
from agent.behaviour.history_view import PastAction
from agent.behaviour.labels import INPUT, TERMINATE
from agent.behaviour.page_index import build_index
from agent.behaviour.page_terms import page_effect
from agent.calibration.sessions import BehaviourSession
from agent.page.parse import parse_page
from personas.sensitivities import NEUTRAL, Sensitivities

MAX_CHOICES = 3000
MIN_CHOICES = 30
PENALTY = 0.1


def choice_sets(
    sessions: Sequence[BehaviourSession],
    memory_texts: dict[str, list[str]],
    person_sensitivities: dict[str, Sensitivities],
) -> list[tuple[np.ndarray, int]]:
    """(feature matrix, index of the chosen row) for every usable recorded choice, up to MAX_CHOICES."""
    sets: list[tuple[np.ndarray, int]] = []
    for session in sessions:
        pages = session.extra.get("pages") or []
        memories = memory_texts.get(session.user_prefix, [])
        for t, step in enumerate(session.steps):
            if step.label == TERMINATE or not step.name or t >= len(pages) or not pages[t]:
                continue
            observation = parse_page(pages[t], url=step.url)
            index = build_index(observation)
            members = index.group(step.label)
            names = [index.candidates[i].name for i in members]
            if len(members) < 2 or step.name not in names:
                continue
            past = [PastAction(s.label, s.name, s.text, s.timestamp) for s in session.steps[:t]]
            query = next((p.text for p in reversed(past) if p.label == INPUT and p.text), "")
            intent = build_intent(query, observation.title, memories)
            sens = person_sensitivities.get(session.user_prefix, NEUTRAL)
            features = element_features(
                index, members, intent, past, page_effect(observation.facts, sens).appeal_by_name
            )
            sets.append((features, names.index(step.name)))
            if len(sets) >= MAX_CHOICES:
                return sets
    return sets


def fit_element_weights(sets: list[tuple[np.ndarray, int]]) -> dict[str, float] | None:
    """Conditional-logit weights, or None when there are too few choices to beat the defaults."""
    if len(sets) < MIN_CHOICES:
        return None
    prior = np.asarray([DEFAULT_WEIGHTS[name] for name in ELEMENT_FEATURES])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for features, chosen in sets:
            scores = features @ w
            scores -= scores.max()
            p = np.exp(scores)
            p /= p.sum()
            total -= np.log(p[chosen] + 1e-12)
            grad -= features[chosen] - p @ features
        n = len(sets)
        diff = w - prior
        return total / n + PENALTY * float(diff @ diff), grad / n + 2 * PENALTY * diff

    result = minimize(loss, prior.copy(), jac=True, method="L-BFGS-B")
    return {name: round(float(v), 4) for name, v in zip(ELEMENT_FEATURES, result.x, strict=True)}
