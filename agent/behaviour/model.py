"""The behaviour model: what a person does next, as a distribution over the benchmark's labels.

Two parts, a discrete-time competing-risks reading of a session (OPeRA, Wang et al. 2025, arXiv
2506.05606): the action model gives, after steps 1..t-1, the probability of each next click type, of
typing, and of the session ending now (the hazard); the outcome model splits an ending into buying
(a purchase click) or leaving (terminate). Each part exists with persona terms and without, the
latter for the ablation and for twins without a persona. The action model's distribution is mixed with
the label chain (label_chain.py: what followed the previous label in real sessions), which keeps rare
self-following labels at their real rates; for a person calibrated on, with their own chain
(person_chain.py). Most-likely decisions add log biases tuned
on cross-validated predictions (agent/calibration/decision_tuning.py), because the benchmark's F1 metrics reward naming
rare labels (terminate, purchase, input) more often than plain argmax would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agent.behaviour.label_chain import LabelChain
from agent.behaviour.labels import LABEL_INDEX, LABELS, PURCHASE, TERMINATE
from agent.behaviour.linear_softmax import LinearSoftmax
from agent.behaviour.person_chain import PersonChain

END = "END"  # the action model's class for "the session ends now" (purchase click or terminate)
ACTION_CLASSES: tuple[str, ...] = (*(label for label in LABELS if label not in (PURCHASE, TERMINATE)), END)
OUTCOME_CLASSES: tuple[str, ...] = (PURCHASE, TERMINATE)
_PURCHASE = LABEL_INDEX[PURCHASE]
_TERMINATE = LABEL_INDEX[TERMINATE]
_ACTION_TO_LABEL = np.asarray([LABEL_INDEX[label] for label in ACTION_CLASSES[:-1]])


@dataclass(frozen=True)
class BehaviourVariant:
    """One fitted pair of (action model, outcome model), mixed with the label chain when there is one."""

    action: LinearSoftmax
    outcome: LinearSoftmax
    chain: LabelChain | PersonChain | None = None  # a PersonChain for the known-person variant
    chain_weight: float = 0.0  # share of the chain in the mixture

    def __post_init__(self) -> None:
        if tuple(self.action.classes) != ACTION_CLASSES:
            raise ValueError(f"action model classes {self.action.classes} differ from {ACTION_CLASSES}")
        if tuple(self.outcome.classes) != OUTCOME_CLASSES:
            raise ValueError(f"outcome model classes {self.outcome.classes} differ from {OUTCOME_CLASSES}")

    def knows(self, person_feature: str) -> bool:
        """Whether this variant has anything of its own for the person (per-person terms or their chain)."""
        if person_feature in self.action.vocabulary:
            return True
        return isinstance(self.chain, PersonChain) and self.chain.knows(person_feature)

    def distribution(self, features: dict[str, float]) -> LabelDistribution:
        action = self.action.probabilities(features)
        outcome = self.outcome.probabilities(features)
        hazard = float(action[-1])
        buy_share = float(outcome[0])
        probabilities = np.zeros(len(LABELS))
        probabilities[_ACTION_TO_LABEL] = action[:-1]
        probabilities[_PURCHASE] = hazard * buy_share
        probabilities[_TERMINATE] = hazard * (1.0 - buy_share)
        if self.chain is not None and self.chain_weight > 0:
            probabilities = (1.0 - self.chain_weight) * probabilities + self.chain_weight * self.chain.probabilities(
                features
            )
            hazard = float(probabilities[_PURCHASE] + probabilities[_TERMINATE])
            buy_share = float(probabilities[_PURCHASE] / hazard) if hazard > 0 else 0.0
        return LabelDistribution(probabilities=probabilities, hazard=hazard, buy_share=buy_share)


@dataclass(frozen=True)
class LabelDistribution:
    """P(next label) over labels.LABELS, with the hazard of ending now and the share of endings that buy."""

    probabilities: np.ndarray
    hazard: float
    buy_share: float

    @classmethod
    def of(cls, probabilities: np.ndarray) -> LabelDistribution:
        """A distribution from probabilities alone (hazard and buy share read off purchase and terminate)."""
        hazard = float(probabilities[_PURCHASE] + probabilities[_TERMINATE])
        return cls(probabilities, hazard, float(probabilities[_PURCHASE] / hazard) if hazard > 0 else 0.0)

    def as_dict(self, digits: int = 4) -> dict[str, float]:
        return {label: round(float(p), digits) for label, p in zip(LABELS, self.probabilities, strict=True)}


@dataclass(frozen=True)
class BehaviourModel:
    """The variants and the decision rule of the most-likely mode.

    `known_person` adds per-person effects (terms and their own chain) for people whose sessions were
    calibrated on; it is used only for them (for anyone else its shared weights fit worse than
    `with_persona`'s).
    """

    with_persona: BehaviourVariant
    without_persona: BehaviourVariant
    decision_bias: np.ndarray  # log bias per label (labels.LABELS order), most-likely mode only
    known_person: BehaviourVariant | None = None
    repeat_bias: float = 0.0  # log bias for repeating the previous label, most-likely mode only
    start_bias: np.ndarray | None = None  # the decision bias at a session's first step (calibration/decision_tuning.py)

    def variant(self, use_persona: bool, person_feature: str | None = None) -> BehaviourVariant:
        if not use_persona:
            return self.without_persona
        if person_feature and self.known_person is not None and self.known_person.knows(person_feature):
            return self.known_person
        return self.with_persona

    def variant_name(self, variant: BehaviourVariant) -> str:
        if variant is self.known_person:
            return "known_person"
        return "persona" if variant is self.with_persona else "no_persona"

    def most_likely(
        self, distribution: LabelDistribution, allowed: np.ndarray | None = None, previous: int | None = None
    ) -> int:
        """The label the decision rule picks: argmax of log p + bias (+ repeat bias for the previous label)."""
        first = previous is None or previous < 0
        bias = self.start_bias if first and self.start_bias is not None else self.decision_bias
        scores = np.log(distribution.probabilities + 1e-12) + bias
        if not first:
            scores[previous] += self.repeat_bias
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        return int(np.argmax(scores))

    @staticmethod
    def sample(distribution: LabelDistribution, rng: np.random.Generator, allowed: np.ndarray | None = None) -> int:
        """Draw a label from the distribution itself (no bias: populations keep real frequencies)."""
        probabilities = distribution.probabilities
        if allowed is not None:
            probabilities = np.where(allowed, probabilities, 0.0)
        total = probabilities.sum()
        if total <= 0:
            raise ValueError("no allowed label has any probability")
        return int(rng.choice(len(probabilities), p=probabilities / total))
