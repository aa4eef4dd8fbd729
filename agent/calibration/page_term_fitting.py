"""Fit the page terms' coefficients on real choices, when the data has pages (the full OPeRA release).

For every recorded step whose page shows products, the sequence model's P(label | history) is the base;
the page terms shift it (page_terms.py); the coefficients that maximise the likelihood of what people did
next, under a Gaussian penalty toward the priors, replace the priors. A product's appeal is linear in
each coefficient it uses (price, deal, rating, review volume), so each step is reduced once to its
appeal components and the fit is plain numpy over them. Which product of a list counts as "the one that
could be bought" is fixed at the priors. Proved by a parameter-recovery test (tests/test_page_terms.py):
labels drawn from known coefficients are fitted back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import minimize

from agent.behaviour.labels import LABEL_INDEX, PURCHASE, TERMINATE
from agent.behaviour.page_terms import (
    LOOK_ELSEWHERE,
    PRIORS,
    PageTermCoefficients,
    page_effect,
)
from agent.page.facts_model import PageFacts
from personas.sensitivities import Sensitivities

APPEAL_COEFFICIENTS: tuple[str, ...] = ("price_elasticity", "deal", "rating_elasticity", "volume_elasticity")
FITTED: tuple[str, ...] = (*APPEAL_COEFFICIENTS, "leave_per_appeal", "look_per_appeal", "read_reviews")
MIN_STEPS = 200  # fewer steps with products in view than this: keep the priors
PENALTY = 0.5  # Gaussian penalty toward the priors, per coefficient, in units of the prior's scale
_PURCHASE, _TERMINATE, _REVIEW = LABEL_INDEX[PURCHASE], LABEL_INDEX[TERMINATE], LABEL_INDEX["review"]
_LOOK = np.asarray([LABEL_INDEX[label] for label in LOOK_ELSEWHERE])


@dataclass(frozen=True)
class PageStep:
    """One recorded decision on a page that shows products."""

    facts: PageFacts
    sens: Sensitivities
    base: np.ndarray  # the sequence model's P(label | history), labels.LABELS order
    allowed: np.ndarray  # labels the page offered
    label: int  # what the person did


@dataclass(frozen=True)
class _Design:
    constant: np.ndarray  # (n,) appeal with every fitted appeal coefficient at 0
    components: np.ndarray  # (n, len(APPEAL_COEFFICIENTS)) appeal per unit of each coefficient
    reviews: np.ndarray  # (n,) the review-reading term per unit of read_reviews
    log_base: np.ndarray  # (n, labels), -inf where not allowed
    labels: np.ndarray


def _appeal(facts: PageFacts, sens: Sensitivities, coef: PageTermCoefficients) -> float:
    effect = page_effect(facts, sens, coef)
    return effect.shifts.get(PURCHASE, 0.0)


def design(steps: Sequence[PageStep], prior: PageTermCoefficients = PRIORS) -> _Design:
    zero = replace(prior, **dict.fromkeys(APPEAL_COEFFICIENTS, 0.0))
    constant, components, reviews = [], [], []
    for step in steps:
        base_appeal = _appeal(step.facts, step.sens, zero)
        constant.append(base_appeal)
        components.append(
            [_appeal(step.facts, step.sens, replace(zero, **{name: 1.0})) - base_appeal for name in APPEAL_COEFFICIENTS]
        )
        reviews.append(step.sens.reviews if step.facts.reviews_shown else 0.0)
    log_base = np.asarray([np.where(s.allowed, np.log(np.clip(s.base, 1e-12, None)), -np.inf) for s in steps])
    return _Design(
        np.asarray(constant),
        np.asarray(components).reshape(len(steps), len(APPEAL_COEFFICIENTS)),
        np.asarray(reviews),
        log_base,
        np.asarray([s.label for s in steps]),
    )


def log_likelihood(theta: np.ndarray, d: _Design) -> float:
    """Mean log P(what people did) under coefficients theta (FITTED order)."""
    appeal = d.constant + d.components @ theta[: len(APPEAL_COEFFICIENTS)]
    leave, look, read = theta[len(APPEAL_COEFFICIENTS) :]
    unappeal = np.maximum(0.0, -appeal)
    logits = d.log_base.copy()
    logits[:, _PURCHASE] += appeal
    logits[:, _TERMINATE] += leave * unappeal
    logits[:, _LOOK] += (look * unappeal)[:, None]
    logits[:, _REVIEW] += read * d.reviews
    top = np.max(logits, axis=1, keepdims=True)
    log_z = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
    return float(np.mean(logits[np.arange(len(d.labels)), d.labels] - log_z))


def fit_page_terms(
    steps: Sequence[PageStep], prior: PageTermCoefficients = PRIORS, penalty: float = PENALTY
) -> PageTermCoefficients | None:
    """Coefficients fitted to the steps, or None when there are too few to move the priors."""
    # An unavailable product in view has no appeal to weigh (it cannot be bought): such steps say nothing
    # about these coefficients.
    steps = [s for s in steps if not (s.facts.focus_product and s.facts.focus_product.availability == "unavailable")]
    if len(steps) < MIN_STEPS:
        return None
    d = design(steps, prior)
    start = np.asarray([getattr(prior, name) for name in FITTED])
    scale = np.maximum(np.abs(start), 0.25)

    def loss(theta: np.ndarray) -> float:
        return -log_likelihood(theta, d) + penalty / len(steps) * float(np.sum(((theta - start) / scale) ** 2))

    result = minimize(loss, start.copy(), method="L-BFGS-B", bounds=[(0.0, None)] * len(FITTED))
    return replace(prior, **{name: float(v) for name, v in zip(FITTED, result.x, strict=True)})


def page_steps(
    sessions: Sequence,
    people: dict,
    expected: Callable,
    parse: Callable,
    sensitivities_of: Callable,
    allowed_of: Callable,
) -> list[PageStep]:
    """Recorded steps with a page that shows products (sessions.extra["pages"][t] is the page before step t)."""
    steps: list[PageStep] = []
    for session in sessions:
        pages = session.extra.get("pages") or []
        sens = sensitivities_of(people.get(session.user_prefix))
        for t, step in enumerate(session.steps):
            if t >= len(pages) or not pages[t] or step.label not in LABEL_INDEX:
                continue
            observation = parse(pages[t], step.url)
            if not observation.facts.products or observation.page_type == "cart":
                continue
            allowed = allowed_of(observation)
            label = LABEL_INDEX[step.label]
            if not allowed[label]:
                continue
            steps.append(PageStep(observation.facts, sens, expected(session, t), allowed, label))
    return steps
