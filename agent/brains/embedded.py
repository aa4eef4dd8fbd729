"""The embedded brain: the behaviour model calibrated on real OPeRA sessions, offline, milliseconds a call.

The default brain, the one populations sample from, and the fallback whenever an LLM fails. The model
and its parameters live in agent/behaviour (see docs/behaviour_model.md).
"""

from __future__ import annotations

from pathlib import Path

from agent.behaviour.engine import BehaviourEngine
from agent.behaviour.params import load_params
from agent.brain_answer import Decision
from agent.brains.names import BrainName
from agent.twin_context import TwinContext


class EmbeddedBrain:
    name = BrainName.EMBEDDED.value

    def __init__(self, params_path: Path | str | None = None) -> None:
        self.engine = BehaviourEngine(load_params(params_path))

    def decide_sync(self, ctx: TwinContext) -> Decision:
        """For bulk use (populations, benchmarks): no event loop needed."""
        return self.engine.decide(ctx)

    async def decide(self, ctx: TwinContext) -> Decision:
        return self.engine.decide(ctx)
