"""A prompt that fits the model's context window, or a clear refusal before the call.

Why: a local server allocates a fixed context when it starts (llama.cpp defaults to 2,048 tokens and /v1/models
does not say), and a prompt past it fails inside the server after the wait, or is silently truncated. So the
prompt is measured in the model's own tokens (agent/llm/token_count.py) and, when too long, built again with a
smaller budget for the page's element list, which keeps the elements ranked highest (agent/llm/page_block.py ->
agent/candidate_ranking.py); the profile, memories and history are not cut. A prompt that does not fit even
without elements is refused with the numbers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agent.llm.choices import ChoiceSet
from agent.llm.page_block import candidate_line, estimate_tokens
from agent.llm.token_count import MESSAGE_OVERHEAD_TOKENS, TokenCounter, messages_text
from agent.page.candidate import Candidate

MAX_ROUNDS = 5


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
    """compose(element_budget) -> the prompt; the largest budget (<= `budget`) whose prompt leaves `answer_tokens`
    of the context free. The prompt's details gain "context": its measured size and what was cut."""
    limit = context_tokens - answer_tokens
    measured = 0
    built: BuiltPrompt | None = None
    for _ in range(MAX_ROUNDS):
        built = await compose(budget)
        counted = await counter.count_messages(built.messages) if counter is not None else None
        text_estimate = estimate_tokens(messages_text(built.messages))
        measured = counted if counted is not None else text_estimate + MESSAGE_OVERHEAD_TOKENS * len(built.messages)
        built.details["context"] = {
            "prompt_tokens": measured,
            "context_tokens": context_tokens,
            "answer_tokens_kept": answer_tokens,
            "counted_by": "the model server's tokenizer" if counted is not None else "estimate (characters / 4)",
            "elements_shown": len(built.shown),
            "elements_on_page": elements_on_page,
            "element_budget": budget,
        }
        if measured <= limit:
            return built
        if not built.shown:
            break
        shown_estimate = sum(estimate_tokens(candidate_line(c)) + 1 for c in built.shown)
        ratio = measured / max(1, text_estimate)  # the model's tokens per estimated token
        smaller = int(shown_estimate - (measured - limit) / ratio) - 16
        budget = max(0, min(smaller, budget - 16))
    shown = len(built.shown) if built is not None else 0
    raise PromptTooLong(
        f"the prompt needs {measured} tokens but the model's context holds {context_tokens} "
        f"({answer_tokens} kept for the answer), even with the page's element list cut to {shown} "
        f"of {elements_on_page} elements; start the server with a larger context "
        f"(twinsim llm serve --context N) and set TWINSIM_LLM_CONTEXT_TOKENS to it"
    )
