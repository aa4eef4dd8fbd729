"""A prompt that fits the model's context window, or a clear refusal before the call.

Why: a local server allocates a fixed context when it starts (llama.cpp defaults to 2,048 tokens and /v1/models
does not say), and a prompt past it fails inside the server after the wait, or is silently truncated. So the
prompt is measured in the model's own tokens (agent/llm/token_count.py) and, when too long, built again with a
smaller budget for the page's element list, which keeps the elements ranked highest (agent/llm/page_block.py ->
agent/candidate_ranking.py); the profile, memories and history are not cut. A prompt that does not fit even
without elements is refused with the numbers.

The budget is found by search, not by one proportional cut: element lines (long dotted slugs) cost a model two to
three times the tokens per character of prose, so scaling by the whole prompt's ratio cut a search page to 8 of
its 312 elements with a third of the context unused. The prompt is measured with no elements and with the full
list, the budget interpolated between them, and narrowed until it fits with little left over.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agent.llm.choices import ChoiceSet
from agent.llm.page_block import estimate_tokens, line_cost
from agent.llm.token_count import MESSAGE_OVERHEAD_TOKENS, TokenCounter, messages_text
from agent.page.candidate import Candidate

MAX_ROUNDS = 7  # measurements of one prompt: the full list, none, then interpolation steps
CLOSE_ENOUGH = 0.03  # stop when the prompt fits and leaves less than this share of the limit unused


class PromptTooLong(Exception):
    """The prompt cannot fit the model's context, even with the page's elements cut."""


@dataclass
class BuiltPrompt:
    messages: list[dict]
    choices: ChoiceSet | None
    details: dict
    shown: list[Candidate]


async def fit_prompt(
    compose: Callable[[int], Awaitable[BuiltPrompt]],
    counter: TokenCounter | None,
    *,
    context_tokens: int,
    answer_tokens: int,
    budget: int,
    elements_on_page: int,
) -> BuiltPrompt:
    """compose(element_budget) -> the prompt; the largest budget (<= `budget`) found whose prompt leaves
    `answer_tokens` of the context free. The prompt's details gain "context": its measured size and what was cut."""
    limit = context_tokens - answer_tokens

    async def measure(element_budget: int) -> tuple[BuiltPrompt, int]:
        built = await compose(element_budget)
        counted = await counter.count_messages(built.messages) if counter is not None else None
        measured = (
            counted
            if counted is not None
            else estimate_tokens(messages_text(built.messages)) + MESSAGE_OVERHEAD_TOKENS * len(built.messages)
        )
        built.details["context"] = {
            "prompt_tokens": measured,
            "context_tokens": context_tokens,
            "answer_tokens_kept": answer_tokens,
            "counted_by": "the model server's tokenizer" if counted is not None else "estimate (characters / 4)",
            "elements_shown": len(built.shown),
            "elements_on_page": elements_on_page,
            "element_budget": element_budget,
        }
        return built, measured

    built, measured = await measure(budget)
    if measured <= limit:
        return built
    if not built.shown:
        raise _too_long(measured, context_tokens, answer_tokens, elements_on_page)
    # the smallest budget known too big: what the list shown at `budget` used
    over_budget, over_tokens = min(budget, sum(line_cost(c) for c in built.shown)), measured
    best, best_tokens = await measure(0)
    if best_tokens > limit:
        raise _too_long(best_tokens, context_tokens, answer_tokens, elements_on_page)
    fit_budget = 0  # the largest budget known to fit
    for _ in range(MAX_ROUNDS - 2):
        if over_budget - fit_budget <= 1 or limit - best_tokens < CLOSE_ENOUGH * limit:
            break
        share = (limit - best_tokens) / max(1, over_tokens - best_tokens)  # tokens grow about linearly with budget
        guess = fit_budget + int((over_budget - fit_budget) * share)
        guess = min(max(guess, fit_budget + 1), over_budget - 1)
        candidate, tokens = await measure(guess)
        if tokens <= limit:
            best, best_tokens, fit_budget = candidate, tokens, guess
        else:
            over_budget, over_tokens = guess, tokens
    return best


def _too_long(measured: int, context_tokens: int, answer_tokens: int, on_page: int) -> PromptTooLong:
    return PromptTooLong(
        f"the prompt needs {measured} tokens but the model's context holds {context_tokens} "
        f"({answer_tokens} kept for the answer), even with the page's element list cut to 0 "
        f"of {on_page} elements; start the server with a larger context "
        f"(twinsim llm serve --context N) and set TWINSIM_LLM_CONTEXT_TOKENS to it"
    )
