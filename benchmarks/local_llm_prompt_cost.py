"""What one local decision costs, part by part, on the shipped model (SmolLM2-135M-Instruct) loaded in this process
with llama-cpp-python (`llama_cpp.Llama`, the library under `twinsim llm serve`'s server), one thread, counted in CPU
seconds of this process so that a machine busy with other work changes the wall time, not the figure.
Writes benchmarks/results/local_llm_prompt_cost.json.

The prompt is the LLM brain's for the sample product page (an OPeRA persona, Wang et al. 2025, arXiv 2506.05606,
CC-BY-4.0; the search history of benchmarks/local_llm.py; no memories): all 46 elements fit a 4,096 context.

1. Reading the prompt (max_tokens 1, nothing cached), per server setting: the server's default (the logits of
   every prompt token kept, logits_all), the last token's logits only (what twinsim's server sets), and that with
   flash attention.
2. Writing the answer, with the prompt already cached: the schema-constrained answer (llama.cpp's grammar, the
   schema the brain sends) against free text, in CPU ms per generated token.

Run: .venv/bin/python benchmarks/local_llm_prompt_cost.py [--context 4096]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from _common import SHARED_OPERA, write_result
from local_llm import PRODUCT_LINK, SEARCH

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from llama_cpp import Llama

from agent.actions import ClickAction
from agent.brains.llm import ANSWER_TOKENS, LLMBrain
from agent.history import Step
from agent.llm.answer_schema import answer_schema
from agent.llm.client import LLMClient
from agent.page.parse import parse_page
from agent.prediction_input import PredictionInput
from agent.sample_pages import sample_page
from agent.twin_context import TwinContext
from personas.sources import load_personas
from service.local_model import shipped_gguf

SETTINGS = {
    "server default (logits of every prompt token)": {"logits_all": True, "flash_attn": False},
    "last token's logits only (twinsim's server)": {"logits_all": False, "flash_attn": False},
    "last token's logits only + flash attention": {"logits_all": False, "flash_attn": True},
}


def product_prompt() -> tuple[list[dict], dict]:
    """The brain's messages for the sample product page, and the answer schema it would send with them."""
    persona = load_personas(SHARED_OPERA / "personas.jsonl")[0]
    observation = parse_page(sample_page("product_page.html"), url="https://www.amazon.com/dp/B0TWINSIM1")
    history = [*SEARCH, Step(action=ClickAction(name=PRODUCT_LINK), click_type="product_link")]
    brain = LLMBrain(LLMClient(), "openai/smollm2-135m-instruct")
    ctx = TwinContext.on_page(persona, observation, PredictionInput(history=history))
    built = asyncio.run(brain.fitted_prompt(ctx, "openai/smollm2-135m-instruct"))  # no context size: not cut
    return built.messages, answer_schema(built.shown, built.choices)


def cpu_call(llm: Llama, messages: list[dict], **kwargs) -> tuple[float, dict]:
    started = time.process_time()
    response = llm.create_chat_completion(messages=messages, temperature=0, **kwargs)
    return time.process_time() - started, response["usage"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--context", type=int, default=4096)
    args = parser.parse_args()
    messages, schema = product_prompt()
    load = os.getloadavg()
    reading: dict = {}
    writing: dict = {}
    for name, setting in SETTINGS.items():
        llm = Llama(
            model_path=str(shipped_gguf()), n_ctx=args.context, n_threads=1, n_threads_batch=1, verbose=False, **setting
        )
        cpu, usage = cpu_call(llm, messages, max_tokens=1)
        reading[name] = {"cpu_s": round(cpu, 1), "prompt_tokens": usage["prompt_tokens"]}
        print(name, reading[name], flush=True)
        if setting == SETTINGS["last token's logits only (twinsim's server)"]:
            for arm, extra in (
                ("schema", {"response_format": {"type": "json_object", "schema": schema}}),
                ("free", {}),
            ):
                cpu, usage = cpu_call(llm, messages, max_tokens=ANSWER_TOKENS, **extra)  # the prompt is cached
                tokens = usage["completion_tokens"]
                writing[arm] = {
                    "cpu_s": round(cpu, 2),
                    "generated_tokens": tokens,
                    "cpu_ms_per_token": round(1000 * cpu / max(tokens, 1), 1),
                }
                print(arm, writing[arm], flush=True)
        del llm
    write_result(
        "local_llm_prompt_cost",
        {
            "model": shipped_gguf().name,
            "context_tokens": args.context,
            "threads": 1,
            "reading_the_prompt": reading,
            "writing_the_answer_prompt_cached": writing,
            "load_average_at_start": [round(x, 2) for x in load],
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "command": f"benchmarks/local_llm_prompt_cost.py --context {args.context}",
        },
    )


if __name__ == "__main__":
    main()
