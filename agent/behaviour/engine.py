"""One prediction of the embedded brain, start to end: features, distribution, label, element, words.

history + persona (+ live context)  ->  P(next label)          (model.py, numpy)
name priors on the element last clicked -> adjusted P          (params name_priors)
the page's facts against what this person cares about -> adjusted P (page_terms.py)
most likely (biased argmax) / sample  ->  label                  (page: only labels the page offers)
page: element choice / no page: names from history and Amazon's standard names
query text for typing, first-person rationale, and the evidence in Decision.details
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from agent.actions import Action, ClickAction, InputAction, TerminateAction
from agent.behaviour.after_add_to_cart import follow_through
from agent.behaviour.checkout_steps import checkout_step, not_next_steps, offers_next_step, on_the_way_to_order
from agent.behaviour.element_choice import build_intent, choose_element
from agent.behaviour.features import NO_LIVE_CONTEXT, LiveContext, history_features
from agent.behaviour.history_view import PastAction, view_history
from agent.behaviour.labels import INPUT, LABEL_INDEX, LABELS, PURCHASE, TERMINATE, click_type_of_label
from agent.behaviour.model import ACTION_CLASSES, END, BehaviourVariant, LabelDistribution
from agent.behaviour.names_without_page import name_click, name_input
from agent.behaviour.page_index import PageIndex, candidate_text, page_index
from agent.behaviour.page_reasons import page_reasons, purpose
from agent.behaviour.page_terms import NO_EFFECT, Driver, PageEffect, apply_effect, page_effect
from agent.behaviour.params import BehaviourParams
from agent.behaviour.persona_features import is_persona_feature, person_feature, persona_vector
from agent.behaviour.query_text import interests, query_text
from agent.behaviour.rationale import doing_phrase, write_rationale
from agent.behaviour.task_text import best_option, field_value, search_terms
from agent.brain_answer import Decision
from agent.page.observation import Observation
from agent.page.page_types import page_type_feature
from agent.twin_context import TwinContext
from personas.persona import Persona
from personas.sensitivities import NEUTRAL, Sensitivities, sensitivities

MODEL_NAME = "behaviour-model"
SEARCH_BOX = "nav_bar.search_input"  # OPeRA's name of the search box


def live_context(ctx: TwinContext) -> LiveContext:
    """Optional live signals a caller may pass in ctx.extra, plus the page type of a real page."""
    extra = ctx.extra or {}
    page_type = None if ctx.observation.empty else page_type_feature(ctx.observation.page_type)
    seconds = extra.get("seconds_since_last_action")
    scrolls = extra.get("scrolls_since_last_action")
    if seconds is None and scrolls is None and page_type is None:
        return NO_LIVE_CONTEXT
    return LiveContext(
        seconds_since_last=float(seconds) if seconds is not None else None,
        scrolls_since_last=int(scrolls) if scrolls is not None else None,
        navigations_since_last=int(extra.get("navigations_since_last_action", 0)) if scrolls is not None else None,
        tabs_since_last=int(extra.get("tabs_since_last_action", 0)) if scrolls is not None else None,
        page_type=page_type,
    )


def _prior_name(last: PastAction, observation: Observation | None) -> str | None:
    """The name whose priors apply to the element last clicked: its own, or, for any shop's search box (a text
    box of search type still on the page), OPeRA's name for Amazon's, so a twin that clicks into it types next."""
    if observation is not None and last.label == "search":
        clicked = observation.by_name.get(last.name or "")
        if clicked is not None and clicked.kind == "input":
            return SEARCH_BOX
    return last.name


class _PersonaCache:
    """persona -> (feature vector, sensitivities), keyed by the Persona object (populations reuse the same objects)."""

    def __init__(self, size: int = 4096) -> None:
        self._items: OrderedDict[int, tuple[Persona, tuple[dict[str, float], Sensitivities]]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, persona: Persona) -> tuple[dict[str, float], Sensitivities]:
        key = id(persona)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0] is persona:
                return hit[1]
        value = (persona_vector(persona), sensitivities(persona))
        with self._lock:
            self._items[key] = (persona, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


class _EffectCache:
    """(page, person's sensitivities) -> the page's terms: a population sees one page with many instances."""

    def __init__(self, size: int = 4096) -> None:
        self._items: OrderedDict[tuple[int, Sensitivities], tuple[Observation, PageEffect]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, observation: Observation, sens: Sensitivities, engine: BehaviourEngine) -> PageEffect:
        if observation.page_type == "cart":  # the cart holds what was chosen; its facts only gate checking out
            return NO_EFFECT
        key = (id(observation), sens)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0] is observation:
                return hit[1]
        effect = page_effect(observation.facts, sens, engine.params.page_terms)
        with self._lock:
            self._items[key] = (observation, effect)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return effect


class BehaviourEngine:
    """Stateless apart from caches: safe to share across threads and requests."""

    def __init__(self, params: BehaviourParams) -> None:
        self.params = params
        self._personas = _PersonaCache()
        self._effects = _EffectCache()

    # ---- the distribution ------------------------------------------------------------------------

    def distribution(
        self, past: list[PastAction], persona: Persona | None, live: LiveContext, observation: Observation | None = None
    ) -> tuple[LabelDistribution, dict[str, float], dict[str, float]]:
        features = history_features(past, live)
        persona_features = self._personas.get(persona)[0] if persona is not None else {}
        if persona_features:
            features = {**features, **persona_features}
        variant = self.variant(persona, persona_features)
        distribution = variant.distribution(features)
        # Priors are about the element last *clicked*: OPeRA names a typed query by its box too
        # (nav_bar.search_input), and what follows typing is already in the history features.
        last = past[-1] if past else None
        priors = (
            self.params.name_priors.get(_prior_name(last, observation) or "")
            if last and last.name and last.label != INPUT
            else None
        )
        if priors:
            adjusted = distribution.probabilities * np.exp(np.asarray([priors.get(label, 0.0) for label in LABELS]))
            distribution = LabelDistribution(adjusted / adjusted.sum(), distribution.hazard, distribution.buy_share)
        return distribution, features, persona_features

    def variant(self, persona: Persona | None, features: dict[str, float]) -> BehaviourVariant:
        return self.params.model.variant(persona is not None, person_feature(features))

    def drivers(
        self, features: dict[str, float], persona: Persona | None, label: str
    ) -> tuple[list[str], list[tuple[str, float]]]:
        """History features that pushed this label up most, and persona features that did."""
        variant = self.variant(persona, features)
        label_class = END if label in ("purchase", TERMINATE) else label
        pushed = variant.action.contributions(features, ACTION_CLASSES.index(label_class), top=8)
        if label in ("purchase", TERMINATE):
            pushed = variant.outcome.contributions(features, 0 if label == "purchase" else 1, top=8) + pushed
        history_drivers = [name for name, _ in pushed if not is_persona_feature(name)]
        persona_drivers = [(name, features[name]) for name, _ in pushed if is_persona_feature(name)]
        return history_drivers, persona_drivers

    # ---- one decision ----------------------------------------------------------------------------

    def decide(self, ctx: TwinContext) -> Decision:
        past = view_history(ctx.history)
        distribution, features, persona_features = self.distribution(
            past, ctx.persona, live_context(ctx), ctx.observation
        )
        observation = ctx.observation
        page_free = observation.empty
        sens = self._personas.get(ctx.persona)[1] if ctx.persona is not None else NEUTRAL
        effect = NO_EFFECT if page_free else self._effects.get(observation, sens, self)
        sequence_only = distribution
        if effect.shifts:
            distribution = LabelDistribution.of(
                apply_effect(distribution.probabilities, effect, self.params.page_terms)
            )
        index = None if page_free else page_index(observation)
        allowed = None if index is None else _allowed(index, observation, effect)
        rng = np.random.default_rng(ctx.seed) if ctx.mode == "sample" else None
        model = self.params.model
        previous = LABEL_INDEX.get(past[-1].label, -1) if past else -1
        # On the way to the order (cart, checkout): go on or leave (not by another item's Add to cart or a field).
        going_on = index is not None and on_the_way_to_order(past, observation)
        unbuyable = (
            (not_next_steps(index) | effect.unavailable_names)
            if going_on and index is not None
            else effect.unavailable_names
        )
        if going_on and index is not None and not offers_next_step(index, unbuyable):
            going_on, unbuyable = False, effect.unavailable_names
        if going_on:
            label_index = LABEL_INDEX[checkout_step(distribution, rng)]
        elif rng is not None:
            label_index = model.sample(distribution, rng, allowed)
        else:
            label_index = model.most_likely(distribution, allowed, previous)
        label = LABELS[label_index]
        follow = follow_through(past, observation) if index is not None else None
        if follow is not None:
            label = follow.click_type

        memory_texts = [m.text for m in ctx.memories]
        # What a person shops for is in what they told (interview, events), not in the survey's statements.
        told = [m.text for m in ctx.memories if m.kind not in ("preference", "personality")]
        preferences = {k.split(":", 1)[1]: v for k, v in persona_features.items() if k.startswith("pref:")}
        goal = ctx.task.goal if ctx.task is not None else None
        element: dict = {}
        query = None
        target = None
        into_box = False
        action: Action
        if label == TERMINATE:
            action = TerminateAction()
        elif follow is not None:
            target = candidate_text(follow)
            action = ClickAction(name=follow.name)
            element = {"name": follow.name, "source": "follow_through"}
        elif index is not None:
            query = _last_query(past)
            intent = build_intent(query or "", observation.title, memory_texts, goal)
            choice = choose_element(
                index,
                label,
                intent,
                past,
                self.params.element_weights,
                effect.appeal_by_name,
                rng=rng,
                excluded=unbuyable if label == PURCHASE else frozenset(),
            )
            target = candidate_text(choice.candidate)
            into_box = choice.candidate.kind == "input"
            element = {
                "name": choice.candidate.name,
                "probability": round(choice.probability, 4),
                "drivers": choice.drivers,
            }
            if label == INPUT:
                given = field_value(goal, target) if goal else None
                if given:  # the task names what goes in this very field ("From" -> "Mumbai")
                    query, why = given, "filling in what my task asks for"
                else:
                    query, why = query_text(
                        past,
                        observation.title,
                        told,
                        preferences,
                        rng,
                        task_terms=search_terms(goal) if goal else None,
                        in_view=[p.title for p in observation.facts.products],
                    )
                element["text_source"] = why
                action = InputAction(name=choice.candidate.name, text=query)
            elif goal and choice.candidate.options:  # a drop-down: the option the task asks for
                option = best_option(choice.candidate.options, goal, rng)
                element["text_source"] = "the option my task asks for"
                action = InputAction(name=choice.candidate.name, text=option)
            else:
                action = ClickAction(name=choice.candidate.name)
        elif label == INPUT:
            query, why = query_text(past, None, told, preferences, rng, search_terms(goal) if goal else None)
            action = InputAction(name=name_input(past), text=query)
            element = {"name": action.name, "text_source": why}
        else:
            name, why = name_click(label, past, self.params.naming)
            action = ClickAction(name=name)
            element = {"name": name, "source": why}

        history_drivers, persona_drivers = self.drivers(features, ctx.persona, label)
        salt = f"{ctx.persona.id if ctx.persona is not None else ''}|{observation.title}|{len(past)}"
        reasons, page_trait = page_reasons(label, effect.drivers, sens, salt)
        came_for = None
        if not past:
            # What they shop for comes from what they told (interview, events); a self-description's
            # "looking for a full-time job" is not a shopping errand.
            came_for = purpose(interests(told), _thing_in_view(observation), goal, sens, salt)
        rationale = write_rationale(
            label,
            doing_phrase(label, target, query, distribution.buy_share, into_box=into_box, elsewhere=bool(reasons)),
            history_drivers,
            persona_drivers,
            ctx.memories,
            past,
            reasons=reasons,
            page_trait=page_trait,
            purpose=came_for,
        )
        details = {
            "mode": ctx.mode,
            "seed": ctx.seed,
            "label": label,
            "click_type": click_type_of_label(label),
            "page_free": page_free,
            "persona_terms": ctx.persona is not None,
            "probabilities": distribution.as_dict(),
            "probability": round(float(distribution.probabilities[label_index]), 4),
            "hazard": round(distribution.hazard, 4),
            "buy_share": round(distribution.buy_share, 4),
            # every driver, strongest first: the rationale may cite any of them, and exports and interviews
            # (agent/behaviour/driver_words.py) word each one
            "drivers": history_drivers,
            "persona_drivers": [name for name, _ in persona_drivers],
            "page_drivers": [_driver_json(d) for d in effect.drivers],
            "page_shifts": {k: round(v, 4) for k, v in effect.shifts.items() if np.isfinite(v)},
            "sequence_probabilities": sequence_only.as_dict() if effect.shifts else None,
            "element": element,
            "task": goal,
        }
        return Decision(action=action, rationale=rationale, model=MODEL_NAME, details=details)


def _allowed(index: PageIndex, observation: Observation, effect: PageEffect) -> np.ndarray:
    """The labels this page offers; buying only where some product in view can be bought."""
    allowed = index.allowed.copy()
    facts = observation.facts
    if facts.products and observation.page_type != "checkout":  # a checkout's controls are the order's, not a product's
        buyable = [i for i in index.group(PURCHASE) if index.candidates[i].name not in effect.unavailable_names]
        if not facts.can_buy or not buyable:
            allowed[LABEL_INDEX[PURCHASE]] = False
    return allowed


def _thing_in_view(observation: Observation) -> str | None:
    focus = observation.facts.focus_product
    title = focus.title if focus is not None else None
    if not title:
        return None
    words = title.split(",")[0].split()
    return " ".join(words[:6])


def _driver_json(driver: Driver) -> dict:
    return {
        "kind": driver.kind,
        "shift": round(driver.shift, 4) if np.isfinite(driver.shift) else None,
        "value": driver.value,
        "reference": driver.reference,
        "trait": driver.trait,
        **({"currency": driver.currency} if driver.currency else {}),
        **({"note": driver.note} if driver.note else {}),
    }


def _last_query(past: list[PastAction]) -> str | None:
    for item in reversed(past):
        if item.label == INPUT and item.text:
            return item.text
    return None
