"""What a second twin's decision on the same page costs once the page has been read: the shipped local model
(SmolLM2-135M-Instruct) loaded in this process with llama-cpp-python (`llama_cpp.Llama`, the library under `twinsim
llm serve`'s server), one thread, CPU seconds of this process (a busy machine changes the wall time, not the figure).
Writes benchmarks/results/local_llm_prefix_reuse.json.

llama.cpp keeps the last prompt's KV cache and reads a next prompt only from the longest common prefix on
(`Llama.generate`). The LLM brain's prompt puts the constant instructions and the page first and the twin's own part
(profile, memories, task, history) after it, so twins on one page share the page. Here, per page, OPeRA personas
(Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) decide one after another with the history of
benchmarks/local_llm.py and no memories: the CPU seconds to read each prompt (max_tokens 1), its tokens, and how
many of them were reused from the previous prompt. The prompts are fitted to the context in the model's own tokens, as
the brain fits them against the server's tokenizer.

Run: .venv/bin/python benchmarks/local_llm_prefix_reuse.py [--context 4096] [--personas 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from _common import SHARED_OPERA, write_result
from local_llm import pages

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from llama_cpp import Llama

from agent.brains.llm import LLMBrain
from agent.llm.client import LLMClient
from agent.llm.page_block import PAGE_CLOSE
from agent.llm.token_count import TokenCounter
from agent.prediction_input import PredictionInput
from agent.twin_context import TwinContext
from personas.sources import load_personas
from service.local_model import shipped_gguf

MODEL = "openai/smollm2-135m-instruct"
PAGES = ("product_page", "search_results (~100 KB)")


class InProcessTokenCounter(TokenCounter):
    """The brain's token counter, answered by the loaded model's tokenizer instead of a server's route."""

    def __init__(self, llm: Llama) -> None:
        super().__init__("http://in-process/v1")
        self.llm = llm

    async def count(self, text: str, model: str | None = None) -> int | None:
        return len(self.llm.tokenize(text.encode(), add_bos=False))


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--personas", type=int, default=3)
    args = parser.parse_args()
    personas = load_personas(SHARED_OPERA / "personas.jsonl")[: args.personas]
    book = pages()
    load = os.getloadavg()
    llm = Llama(model_path=str(shipped_gguf()), n_ctx=args.context, n_threads=1, n_threads_batch=1, verbose=False)
    brain = LLMBrain(LLMClient(), MODEL, context_tokens=args.context)
    brain._counter = InProcessTokenCounter(llm)  # what the brain builds itself for a server's api_base
    out: dict = {}
    for page_name in PAGES:
        observation, history, _ = book[page_name]
        rows = []
        for persona in personas:
            ctx = TwinContext.on_page(persona, observation, PredictionInput(history=history))
            built = asyncio.run(brain.fitted_prompt(ctx, MODEL))
            before = list(llm._input_ids)  # the tokens the KV cache holds: no public view
            started, wall = time.process_time(), time.perf_counter()
            response = llm.create_chat_completion(messages=built.messages, temperature=0, max_tokens=1)
            cpu, wall = time.process_time() - started, time.perf_counter() - wall
            after = list(llm._input_ids)
            user = built.messages[1]["content"]
            page_part = built.messages[0]["content"] + user[: user.index(PAGE_CLOSE) + len(PAGE_CLOSE)]
            rows.append(
                {
                    "persona": persona.id,
                    "prompt_tokens": response["usage"]["prompt_tokens"],
                    "instructions_and_page_tokens": len(llm.tokenize(page_part.encode(), add_bos=False)),
                    "reused_from_previous_prompt": common_prefix(before, after) if before else 0,
                    "elements_shown": len(built.shown),
                    "elements_on_page": len(observation.candidates),
                    "cpu_s": round(cpu, 2),
                    "wall_s": round(wall, 2),
                }
            )
            print(page_name, rows[-1], flush=True)
        llm.reset()  # the next page starts cold, as a page no twin has read yet (no tokens kept to match)
        out[page_name] = rows
    write_result(
        "local_llm_prefix_reuse",
        {
            "model": shipped_gguf().name,
            "context_tokens": args.context,
            "threads": 1,
            "pages": out,
            "load_average_at_start": [round(x, 2) for x in load],
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "command": f"benchmarks/local_llm_prefix_reuse.py --context {args.context} --personas {args.personas}",
        },
    )


if __name__ == "__main__":
    main()
