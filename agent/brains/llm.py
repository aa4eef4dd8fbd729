"""The `llm` brain: any chat model through litellm decides the twin's next action and says why.

Grounding (is the chosen name on this page?) is the graph's job, not this brain's: this brain only
turns the context into a prompt, the answer into a Decision, and every failure into BrainError so the
graph can fall back to the embedded brain.
"""

from __future__ import annotations

from agent.brains.names import BrainName
from agent.decision import BrainError, Decision, TwinContext
from agent.llm.client import LLMCallError, LLMClient
from agent.llm.page_block import DEFAULT_CANDIDATE_TOKEN_BUDGET
from agent.llm.parsing import parse_decision_text
from agent.llm.prompts import build_messages


def _parses(text: str) -> bool:
    try:
        parse_decision_text(text)
    except ValueError:
        return False
    return True


class LLMBrain:
    """Prompt -> LLMClient -> parsed Decision. `mode="sample"` raises the temperature and passes the seed."""

    name = BrainName.LLM.value

    def __init__(
        self,
        client: LLMClient,
        default_model: str | None,
        *,
        candidate_token_budget: int = DEFAULT_CANDIDATE_TOKEN_BUDGET,
        sample_temperature: float = 1.0,
    ) -> None:
        self.client = client
        self.default_model = default_model
        self.candidate_token_budget = candidate_token_budget
        self.sample_temperature = sample_temperature

    async def decide(self, ctx: TwinContext) -> Decision:
        model = ctx.model or self.default_model
        if not model:
            raise BrainError("no model configured for the llm brain (set a default model or pass one per request)")
        messages = build_messages(ctx, candidate_token_budget=self.candidate_token_budget)
        temperature = self.sample_temperature if ctx.mode == "sample" else 0.0
        seed = ctx.seed if ctx.mode == "sample" else None
        try:
            completion = await self.client.complete(model, messages, temperature=temperature, seed=seed, cacheable=_parses)
        except LLMCallError as exc:
            raise BrainError(f"{model}: {exc.reason}") from exc
        try:
            rationale, action = parse_decision_text(completion.text)
        except ValueError as exc:
            raise BrainError(f"unparseable output from {model}: {exc}", usage=completion.usage) from exc
        return Decision(
            action=action,
            rationale=rationale,
            usage=completion.usage,
            model=model,
            details={"raw": completion.text, "cached": completion.cached, "attempts": completion.attempts},
        )
