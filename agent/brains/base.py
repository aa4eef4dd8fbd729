"""The one interface every brain implements; what it is given is in agent.twin_context, what it returns in
agent.brain_answer."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from agent.brain_answer import Decision
from agent.twin_context import TwinContext


@runtime_checkable
class Brain(Protocol):
    name: str

    async def decide(self, ctx: TwinContext) -> Decision:
        """Return the next action with a first-person rationale, or raise BrainError."""
        ...
