"""What an LLM-brain experiment will cost, before it starts: calls, prompt tokens, completion tokens, dollars.

Prompt tokens are counted on the very messages the llm brain would send (agent/llm/prompts.py) with litellm's
token counter, for every persona on every variant page (first steps; later steps of a sequence add their
history, counted at a flat rate). Dollars come from litellm's bundled price map; a model it does not know
(a local server) is priced at zero and the estimate says the price is unknown.
"""

from __future__ import annotations

from agent.experiments.prepared import PreparedExperiment
from agent.llm.offline_litellm import load_litellm
from agent.llm.prompts import build_messages
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.twin_context import TwinContext

COMPLETION_TOKENS_PER_CALL = 120  # a one- or two-sentence rationale and a JSON action
HISTORY_TOKENS_PER_STEP = 60  # what one earlier step of a sequence adds to the prompt
MAX_PERSONAS_COUNTED = 40  # beyond this, the mean of a seeded subset stands for the rest


def count_tokens(model: str, messages: list[dict]) -> int:
    try:
        return int(load_litellm().token_counter(model=model, messages=messages))
    except Exception:  # noqa: BLE001 - a tokenizer litellm cannot load offline: the chars/4 rule
        return sum(len(m.get("content") or "") for m in messages) // 4 + 4 * len(messages)


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    try:
        prompt_usd, completion_usd = load_litellm().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # noqa: BLE001 - not in the price map
        return None
    return float(prompt_usd + completion_usd)


def estimate_cost(prepared: PreparedExperiment, model: str | None) -> dict:
    """Upper-bound estimate for running every unit (sequences are assumed to reach their last page)."""
    spec = prepared.spec
    model = model or "gpt-4o-mini"
    persona_ids = sorted(prepared.personas)[:MAX_PERSONAS_COUNTED]
    scale = len(prepared.personas) / max(1, len(persona_ids))
    calls = prompt_tokens = 0
    given = PredictionInput(
        history=list(spec.history), model=model, task=spec.task, options=PredictOptions(mode="sample", seed=0)
    )
    for _variant, pages in prepared.pages.items():
        for number, page in enumerate(pages):
            counted = 0
            for pid in persona_ids:
                ctx = TwinContext.on_page(
                    prepared.personas[pid],
                    page.observation,
                    given,
                    memories=prepared.memories.get((pid, page.key), []),
                )
                counted += count_tokens(model, build_messages(ctx)) + number * HISTORY_TOKENS_PER_STEP
            prompt_tokens += round(counted * scale) * spec.samples_per_persona
            calls += len(prepared.personas) * spec.samples_per_persona
    completion_tokens = calls * COMPLETION_TOKENS_PER_CALL
    dollars = price(model, prompt_tokens, completion_tokens)
    return {
        "model": model,
        "calls": calls,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "usd": round(dollars, 6) if dollars is not None else 0.0,
        "price_known": dollars is not None,
        "budget_usd": spec.budget_usd,
        "note": "upper bound before the response cache; retries and grounding re-asks are not included",
    }


def check_budget(estimate: dict, budget_usd: float | None) -> str | None:
    """The reason to refuse the run, or None when it fits (or there is no budget)."""
    if budget_usd is None:
        return None
    if estimate["usd"] > budget_usd:
        return (
            f"estimated cost ${estimate['usd']:.4f} ({estimate['calls']} calls, {estimate['prompt_tokens']} prompt "
            f"tokens on {estimate['model']}) is over the budget of ${budget_usd:g}"
        )
    return None
