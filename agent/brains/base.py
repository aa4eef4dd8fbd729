"""The one interface every brain implements; what it is given and returns is in agent.decision."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from agent.decision import Decision, TwinContext


@runtime_checkable
class Brain(Protocol):
    name: str

    async def decide(self, ctx: TwinContext) -> Decision:
        """Return the next action with a first-person rationale, or raise BrainError."""
        ...
