"""The two reference baselines of the fidelity benchmarks: repeat the previous action, always the majority action.

They are scored as they are: the graph does not ground them (`needs_grounding = False`), since a baseline
repaired by the embedded brain would no longer be the baseline.
"""

from __future__ import annotations

from agent.actions import ClickAction
from agent.behaviour.names_without_page import name_click
from agent.behaviour.params import load_params
from agent.brain_answer import Decision
from agent.brains.names import BrainName
from agent.twin_context import TwinContext

# The most frequent action in OPeRA: a click of click type "review" (20.8% of clicks in the filtered
# release, Wang et al. 2025, arXiv 2506.05606; also the most frequent click in the shared timelines).
MAJORITY_CLICK_TYPE = "review"


class MajorityBrain:
    name = BrainName.MAJORITY.value
    needs_grounding = False

    def __init__(self) -> None:
        self._naming = load_params().naming

    def decide_sync(self, ctx: TwinContext) -> Decision:
        on_page = next((c for c in ctx.observation.candidates if c.click_type == MAJORITY_CLICK_TYPE), None)
        if on_page is not None:
            name = on_page.name
        else:
            name, _ = name_click(MAJORITY_CLICK_TYPE, [], self._naming)
        return Decision(
            action=ClickAction(name=name),
            rationale="(baseline) the most common action: a review click.",
            model="majority",
            details={"click_type": MAJORITY_CLICK_TYPE},
        )

    async def decide(self, ctx: TwinContext) -> Decision:
        return self.decide_sync(ctx)


class RepeatPreviousBrain:
    name = BrainName.REPEAT_PREVIOUS.value
    needs_grounding = False

    def __init__(self) -> None:
        self._majority = MajorityBrain()

    def decide_sync(self, ctx: TwinContext) -> Decision:
        if not ctx.history:
            first = self._majority.decide_sync(ctx)
            return first.model_copy(update={"model": "repeat-previous"})
        previous = ctx.history[-1]
        return Decision(
            action=previous.action,
            rationale="(baseline) the same action as the previous step.",
            model="repeat-previous",
            details={"click_type": previous.click_type},
        )

    async def decide(self, ctx: TwinContext) -> Decision:
        return self.decide_sync(ctx)
