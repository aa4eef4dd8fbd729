"""Fit the behaviour model's two parts with scikit-learn and export them as plain arrays.

Persona features are multiplied by `persona_scale` (per-person indicators by `person_scale`) before
fitting and the fitted weights multiplied back, so they apply to raw features; under one L2 penalty
that is a separate, stronger penalty on those terms: with few people in the data, persona effects
must earn their place (both scales are chosen by cross-validation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression

from agent.behaviour.label_chain import LabelChain, context_feature
from agent.behaviour.labels import LABELS, PURCHASE, TERMINATE
from agent.behaviour.linear_softmax import LinearSoftmax
from agent.behaviour.model import ACTION_CLASSES, END, OUTCOME_CLASSES, BehaviourVariant
from agent.behaviour.person_chain import PersonChain
from agent.behaviour.persona_features import PERSON_PREFIX, is_persona_feature, person_feature
from agent.calibration.training_data import TrainingRows

ABSENT_CLASS_BIAS = -12.0  # a class never seen in training is all but impossible


@dataclass(frozen=True)
class FitConfig:
    action_c: float = 0.1
    outcome_c: float = 0.1
    persona_scale: float = 0.3
    use_persona: bool = True
    person_scale: float = 0.0  # 0: no per-person effects
    chain_weight: float = 0.0  # share of the label chain in the predicted distribution (0: none)
    chain_strength: float = 2.0  # the chain's pseudo-counts toward the overall label shares
    person_chain_strength: float = 0.0  # pseudo-counts of a known person's own chain toward the shared one (0: none)

    def scale_of(self, name: str) -> float:
        if name.startswith(PERSON_PREFIX):
            return self.person_scale
        return self.persona_scale if is_persona_feature(name) else 1.0


def merged_features(rows: TrainingRows, config: FitConfig) -> list[dict[str, float]]:
    """History features, plus scaled persona features when the config uses them."""
    if not config.use_persona:
        return rows.history
    merged = []
    for history, persona in zip(rows.history, rows.persona, strict=True):
        row = dict(history)
        for name, value in persona.items():
            scale = config.scale_of(name)
            if scale or (config.person_chain_strength and name.startswith(PERSON_PREFIX)):
                row[name] = value * scale  # the person chain finds the person by name, whatever the value
        merged.append(row)
    return merged


def fit_softmax(
    features: list[dict[str, float]],
    targets: list[str],
    weights: np.ndarray,
    classes: tuple[str, ...],
    c: float,
    config: FitConfig | None = None,
) -> LinearSoftmax:
    """Multinomial logistic regression (L2, lbfgs) exported over `classes` in that order."""
    if not features:
        raise ValueError("no training rows")
    vectorizer = DictVectorizer(sort=True)
    matrix = vectorizer.fit_transform(features)
    model = LogisticRegression(C=c, max_iter=5000, tol=1e-6)
    model.fit(matrix, targets, sample_weight=weights)
    names = list(vectorizer.get_feature_names_out())
    weights_out = np.zeros((len(classes), len(names)))
    bias_out = np.full(len(classes), ABSENT_CLASS_BIAS)
    fitted = list(model.classes_)
    if len(fitted) == 2:  # scikit-learn keeps one row for binary problems: logit of the second class
        rows = {fitted[0]: (np.zeros(len(names)), 0.0), fitted[1]: (model.coef_[0], float(model.intercept_[0]))}
    elif len(fitted) == 1:
        rows = {fitted[0]: (np.zeros(len(names)), 0.0)}
    else:
        rows = {label: (model.coef_[i], float(model.intercept_[i])) for i, label in enumerate(fitted)}
    for i, label in enumerate(classes):
        if label in rows:
            weights_out[i], bias_out[i] = rows[label]
    if config is not None:
        weights_out = weights_out * np.asarray([config.scale_of(name) for name in names])
    return LinearSoftmax(
        classes=classes,
        vocabulary={name: i for i, name in enumerate(names)},
        weights=weights_out,
        bias=bias_out,
    )


def action_target(label_index: int) -> str:
    label = LABELS[label_index]
    return END if label in (PURCHASE, TERMINATE) else label


def fit_chain(rows: TrainingRows, strength: float) -> LabelChain:
    """The label chain on the benchmark rows (each step once)."""
    steps = np.flatnonzero(~rows.training_only)
    return LabelChain.fit(((context_feature(rows.previous[i]), int(rows.labels[i])) for i in steps), strength)


def fit_person_chain(rows: TrainingRows, shared: LabelChain, strength: float) -> PersonChain:
    """Each known person's transitions (benchmark rows, each step once), refining the shared chain."""
    triples = (
        (person_feature(rows.persona[i]), context_feature(rows.previous[i]), int(rows.labels[i]))
        for i in np.flatnonzero(~rows.training_only)
    )
    return PersonChain.fit(shared, ((p, c, label) for p, c, label in triples if p is not None), strength)


def fit_variant(rows: TrainingRows, config: FitConfig) -> BehaviourVariant:
    """The action model on every row, the outcome model on the rows where a session ends, and the chain."""
    features = merged_features(rows, config)
    action = fit_softmax(
        features,
        [action_target(i) for i in rows.labels],
        rows.weights,
        ACTION_CLASSES,
        config.action_c,
        config,
    )
    ends = [i for i, label in enumerate(rows.labels) if LABELS[label] in (PURCHASE, TERMINATE)]
    outcome = fit_softmax(
        [features[i] for i in ends],
        [LABELS[rows.labels[i]] for i in ends],
        rows.weights[ends],
        OUTCOME_CLASSES,
        config.outcome_c,
        config,
    )
    label_chain = fit_chain(rows, config.chain_strength) if config.chain_weight > 0 else None
    chain: LabelChain | PersonChain | None = label_chain
    if label_chain is not None and config.use_persona and config.person_chain_strength > 0:
        chain = fit_person_chain(rows, label_chain, config.person_chain_strength)
    return BehaviourVariant(action=action, outcome=outcome, chain=chain, chain_weight=config.chain_weight)
