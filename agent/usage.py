"""What one prediction spent: tokens, dollars and provider calls (zero for offline brains).

Why its own module: the LLM client counts it, brains report it, and the API, evaluation and experiments add it
up, so it belongs to none of them."""

from __future__ import annotations

from pydantic import BaseModel


class Usage(BaseModel):
    """Tokens and dollars one prediction spent (zero for offline brains)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def add(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            calls=self.calls + other.calls,
        )
