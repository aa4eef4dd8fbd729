"""What only the full OPeRA action table can teach (step 5 of `twinsim calibrate`, see calibrate.py).

The timelines carry no element names, typed text or pages; the action table does. From its sessions come
the page-free naming tables, the name priors, the element-choice weights and the page-term coefficients.
Without it (or with too few pages) the shipped defaults stay. The page-reading imports are local so a
calibration on the timelines alone never loads them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agent.behaviour.labels import LABEL_INDEX, PURCHASE
from agent.behaviour.model import BehaviourVariant
from agent.behaviour.names_without_page import NamingTables
from agent.behaviour.page_terms import PRIORS
from agent.behaviour.params import DEFAULT_NAME_PRIORS
from agent.calibration.naming_learning import learn_name_priors, learn_naming
from agent.calibration.sessions import BehaviourSession
from agent.page.observation import Observation
from personas.persona import Persona


def learn_from_action_table(
    recorded: Sequence[BehaviourSession], people: dict[str, Persona], history_only: BehaviourVariant
) -> dict:
    """params.json's naming, name_priors, element_choice and page_terms; the defaults when `recorded` is empty.

    `history_only` is the fitted variant without persona terms: name priors and page terms are corrections
    to what it expects.
    """
    learned: dict[str, Any] = {
        "naming": NamingTables(),
        "name_priors": DEFAULT_NAME_PRIORS,
        "element_choice": {},
        "page_terms": {"source": "prior", "coefficients": PRIORS.to_json()},
    }
    if recorded:
        learned["naming"] = learn_naming(recorded)
        learned["name_priors"] = learn_name_priors(recorded, _expected_labels(history_only)) or DEFAULT_NAME_PRIORS
        learned["element_choice"] = learn_element_weights(recorded, people)
        learned["page_terms"] = learn_page_terms(recorded, people, history_only) or learned["page_terms"]
    learned["naming"] = learned["naming"].to_json()
    return learned


def _expected_labels(variant: BehaviourVariant) -> Callable[[BehaviourSession, int], np.ndarray]:
    """What the history-only model expects at step t (name priors are corrections to it)."""
    from agent.behaviour.features import history_features

    def expected(session: BehaviourSession, t: int) -> np.ndarray:
        return variant.distribution(history_features(session.steps[:t])).probabilities

    return expected


def learn_element_weights(recorded: Sequence[BehaviourSession], people: dict[str, Persona]) -> dict[str, float]:
    """Element-choice weights from the action table's pages (empty when pages are missing or too few)."""
    from agent.calibration.element_learning import choice_sets, fit_element_weights
    from personas.sensitivities import sensitivities

    memory_texts = {
        key: [text for text in (p.self_description, p.interview_summary) if text] for key, p in people.items()
    }
    sets = choice_sets(recorded, memory_texts, {key: sensitivities(p) for key, p in people.items()})
    return fit_element_weights(sets) or {}


def learn_page_terms(
    recorded: Sequence[BehaviourSession], people: dict[str, Persona], variant: BehaviourVariant
) -> dict | None:
    """Page-term coefficients fitted on the action table's pages (None when pages are missing or too few)."""
    from agent.behaviour.page_index import build_index
    from agent.calibration.page_term_fitting import fit_page_terms, page_steps
    from agent.page.parse import parse_page
    from personas.sensitivities import sensitivities

    def allowed_of(observation: Observation) -> np.ndarray:
        allowed = build_index(observation).allowed.copy()
        allowed[LABEL_INDEX[PURCHASE]] &= observation.facts.can_buy
        return allowed

    steps = page_steps(
        recorded,
        people,
        _expected_labels(variant),
        lambda html, url: parse_page(html, url=url),
        sensitivities,
        allowed_of,
    )
    fitted = fit_page_terms(steps)
    if fitted is None:
        return None
    return {"source": "fitted", "steps": len(steps), "coefficients": fitted.to_json()}
