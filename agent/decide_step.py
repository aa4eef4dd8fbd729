"""The one decide-and-ground step: reason -> act -> ground, one retry with the reason, then the embedded fallback.

    reason   the brain writes a first-person rationale and proposes an action (one brain call)
    act      the proposal is made concrete for this page (a near-miss name resolved to the candidate's)
    ground   the action must be doable here; if not, the reason goes back to the brain (options.max_retries
             times, once by default), then the embedded brain answers instead and the outcome says why

Why one generator: the graph (a single prediction, brains awaited) and an experiment's bulk units (the embedded
brain called directly, no LangGraph) run this same step through `agent.step_driving`, so a rule changed here
changes both, and a bulk run's twins decide exactly as a single prediction's would.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace

from agent.actions import Action
from agent.brain_answer import BrainError, Decision
from agent.brains.base import Brain
from agent.brains.names import BrainName
from agent.grounding import grounding_error, normalise, rejection
from agent.twin_context import TwinContext
from agent.usage import Usage

FALLBACK_BRAIN = BrainName.EMBEDDED.value


@dataclass(frozen=True)
class Ask:
    """A decision the step needs: `brain` (by name) given `ctx`."""

    brain: str
    ctx: TwinContext


@dataclass(frozen=True)
class Grounded:
    """The step's outcome: the decision that stands and its action, made concrete for the page."""

    decision: Decision
    action: Action
    attempts: int  # calls to the asked brain (the fallback's is not counted)
    usage: Usage  # every call's, the failed and the fallback's included
    answered_by: str  # the brain whose action stands
    fallback_reason: str | None  # why the fallback answered; None when the asked brain's action stands


def decide_and_ground(brain: Brain, ctx: TwinContext, max_retries: int) -> Generator[Ask, Decision, Grounded]:
    """Yields the decisions it needs, is sent each answer (or thrown the BrainError), returns the outcome."""
    usage, attempts, feedback = Usage(), 0, None
    while True:
        attempts += 1
        try:
            decision = yield Ask(brain.name, ctx if feedback is None else replace(ctx, feedback=feedback))
        except BrainError as error:
            usage = usage.add(error.usage)
            reason = f"{brain.name} brain failed: {error}"
            break
        usage = usage.add(decision.usage)
        action = normalise(decision.action, ctx.observation)
        if not getattr(brain, "needs_grounding", True):  # baselines are scored as they are
            return Grounded(decision, action, attempts, usage, brain.name, None)
        # A brain that grounded its own answer (a choice's number, agent/llm/choices.py) says why it could not.
        problem = decision.details.get("grounding_error") or grounding_error(action, ctx.observation)
        if problem is None:
            return Grounded(decision, action, attempts, usage, brain.name, None)
        feedback = rejection(action, problem)
        if attempts > max_retries:
            reason = f"invalid action after {attempts} attempt(s): {feedback}"
            break
    fallback = yield Ask(FALLBACK_BRAIN, ctx)
    return Grounded(fallback, fallback.action, attempts, usage.add(fallback.usage), FALLBACK_BRAIN, reason)
