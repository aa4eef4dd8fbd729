"""Page sensitivity with the LLM brain on the shipped local model: does a 135M model's twin react to the sample
product page's price at x2.5, or to the page without its reviews? Writes benchmarks/results/llm_page_sensitivity.json.

Twins: the first N OPeRA personas (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) x M instances, no memories, the
brain's own sampling (temperature 1) with common random numbers: the seed is 1,000,000 + 1,000 x persona + instance,
the same in every variant, so each (persona, instance) is a pair across variants. The answer is the multiple choice
under the schema (agent/llm/choices.py, TWINSIM_LLM_GROUNDING=textual_choices): the option picked decides the action.
History: a search, then a click on this product's link (as benchmarks/local_llm.py).

Order: instance by instance, and within one instance each variant's twins one after another, so the server reads a
variant's page once per instance and then only each twin's own part (its prompt puts the page first); a run cut by
--max-minutes still has whole instances of every variant.

Whether the twins could see the difference at all: the prompt of each variant is compared with the control's (the
prices and review lines it carries), since a page cut to the context could drop the very line that changed.

Outcomes: purchase (a purchase-type click), leave (the leave option), review (a click on a review element). Paired
McNemar per outcome and variant (agent/experiments/significance_tests.py), Holm over every test of the run.

Run: .venv/bin/python benchmarks/llm_page_sensitivity.py [--personas 20 --instances 5] [--max-minutes M]
     [--context 4096] [--threads 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import time
from collections import Counter
from importlib.metadata import version

import numpy as np
from _common import SHARED_OPERA, holm_adjust, percentile, stop_cleanly_on_sigterm, write_result
from local_llm import PRODUCT_LINK, SEARCH, decide, first_try, outcome
from page_edits import MANIPULATIONS, Page

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agent.actions import ClickAction
from agent.brain_answer import BrainError
from agent.brains.llm import LLMBrain
from agent.experiments.significance_tests import _paired_binary
from agent.grounding import normalise
from agent.history import Step
from agent.llm.client import LLMClient
from agent.page.parse import parse_page
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.sample_pages import sample_page
from agent.twin_context import TwinContext
from personas.sources import load_personas
from service.local_model import LocalModelServer, shipped_gguf

CITATION = "OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0 (personas)"
URL = "https://www.amazon.com/dp/B0TWINSIM1"
OUTCOMES = ("purchase", "leave", "review")
ALPHA = 0.05
VARIANTS = ("control", "price_x2.5", "no_reviews")
_PRICE = re.compile(r"\$\d[\d,]*\.\d\d")
_REVIEWISH = re.compile(r"review|rating|stars?\b", re.IGNORECASE)


def variant_pages() -> dict[str, str]:
    html = sample_page("product_page.html")
    base = Page.make(
        "sample product page", "project-made", "agent/sample_pages/product_page.html", "product", html, None
    )
    return {"control": base.html, **{name: MANIPULATIONS[name](base) for name in VARIANTS[1:]}}


def user_text(messages: list[dict]) -> str:
    content = messages[1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


async def what_the_prompt_shows(brain: LLMBrain, model: str, persona, observations: dict) -> dict:
    """Per variant: the prices and the review lines in the prompt, and what differs from the control's prompt."""
    shown: dict[str, dict] = {}
    for name, observation in observations.items():
        ctx = TwinContext.on_page(persona, observation, PredictionInput(history=HISTORY))
        built = await brain.fitted_prompt(ctx, model)
        text = user_text(built.messages)
        shown[name] = {
            "lines": set(text.splitlines()),
            "prices": sorted(set(_PRICE.findall(text))),
            "review_lines": [line[:160] for line in text.splitlines() if _REVIEWISH.search(line)][:12],
            "elements_shown": built.details.get("context", {}).get("elements_shown", len(built.shown)),
        }
    control = shown["control"]["lines"]
    return {
        name: {
            "prices_in_prompt": info["prices"],
            "review_lines_in_prompt": info["review_lines"],
            "elements_shown": info["elements_shown"],
            "lines_differing_from_control": (
                None
                if name == "control"
                else {
                    "only_in_variant": sorted(line[:160] for line in info["lines"] - control)[:12],
                    "only_in_control": sorted(line[:160] for line in control - info["lines"])[:12],
                }
            ),
        }
        for name, info in shown.items()
    }


HISTORY = [*SEARCH, Step(action=ClickAction(name=PRODUCT_LINK), click_type="product_link")]


def tests(outcomes: dict[str, dict[tuple[int, int], str]]) -> list[dict]:
    """Paired McNemar per variant and outcome over the (persona, instance) pairs every variant has."""
    pairs = sorted(set.intersection(*(set(by_pair) for by_pair in outcomes.values())))
    out: list[dict] = []
    for variant in VARIANTS[1:]:
        for name in OUTCOMES:
            a = np.array([outcomes["control"][p] == name for p in pairs], dtype=int)
            b = np.array([outcomes[variant][p] == name for p in pairs], dtype=int)
            entry = {"variant": variant, "outcome": name, "pairs": len(pairs)}
            entry["control_rate"] = round(float(a.mean()), 4) if pairs else None
            entry["variant_rate"] = round(float(b.mean()), 4) if pairs else None
            if pairs and (a != b).any():
                entry.update(_paired_binary(a, b))
            else:
                entry.update(p_value=None, why="no discordant pair: nothing to test")
            out.append(entry)
    holm_adjust(out, ALPHA)
    return out


async def run(args) -> dict:
    personas = load_personas(SHARED_OPERA / "personas.jsonl")[: args.personas]
    observations = {name: parse_page(html, url=URL) for name, html in variant_pages().items()}
    gguf = shipped_gguf()
    result: dict = {"citation": CITATION}
    with LocalModelServer(gguf=gguf, context_tokens=args.context, threads=args.threads) as server:
        client = LLMClient(api_base=server.api_base, timeout_s=600, retries=0, concurrency=1)
        brain = LLMBrain(
            client,
            server.model,
            structured_output="llama_cpp",
            grounding="textual_choices",
            context_tokens=args.context,
            sample_temperature=1.0,
        )
        result["model"] = {
            "gguf": gguf.name,
            "context_tokens": args.context,
            "threads": args.threads,
            "server": f"llama-cpp-python {version('llama_cpp_python')} (python -m llama_cpp.server)",
        }
        result["what_the_prompt_shows"] = await what_the_prompt_shows(brain, server.model, personas[0], observations)
        outcomes: dict[str, dict[tuple[int, int], str]] = {name: {} for name in observations}
        mixes: dict[str, Counter] = {name: Counter() for name in observations}
        choices: dict[str, Counter] = {name: Counter() for name in observations}
        latency: dict[str, list[float]] = {name: [] for name in observations}
        loads: list = []
        started = time.perf_counter()
        deadline = started + args.max_minutes * 60
        stopped_early = False
        for instance in range(args.instances):
            for name, observation in observations.items():
                for p, persona in enumerate(personas):
                    if time.perf_counter() > deadline:
                        stopped_early = True
                        break
                    options = PredictOptions(mode="sample", seed=1_000_000 + 1_000 * p + instance)
                    ctx = TwinContext.on_page(persona, observation, PredictionInput(history=HISTORY, options=options))
                    answer = await decide(brain, ctx)
                    ok, _, _ = first_try(answer, observation)
                    got = outcome(normalise(answer.action, observation), observation) if ok else "invalid"
                    outcomes[name][(p, instance)] = got
                    mixes[name][got] += 1
                    if not isinstance(answer, BrainError):
                        latency[name].append(answer.details["latency_s"])
                        choices[name][answer.details.get("choice")] += 1
                loads.append([round(x, 2) for x in os.getloadavg()])
                print(f"instance {instance} {name}: {dict(mixes[name])}", flush=True)
            result.update(
                variants={
                    name: {
                        "decisions": sum(mixes[name].values()),
                        "outcomes": dict(mixes[name]),
                        "choices_most_picked": [[c, n] for c, n in choices[name].most_common(5)],
                        "latency_s_p50": round(percentile(latency[name], 50), 2) if latency[name] else None,
                    }
                    for name in observations
                },
                tests=tests(outcomes),
                instances_completed=instance + (0 if stopped_early else 1),
                stopped_by_max_minutes=stopped_early,
                seconds=round(time.perf_counter() - started, 1),
                load_average_after_each_variant=loads,
            )
            write_result(args.result_name, {**result, "command": command(args)})  # kept if the run is cut short
            if stopped_early:
                break
    return result


def command(args) -> str:
    return (
        f"benchmarks/llm_page_sensitivity.py --personas {args.personas} --instances {args.instances} "
        f"--context {args.context} --threads {args.threads}"
        + (f" --max-minutes {args.max_minutes:g}" if args.max_minutes != float("inf") else "")
    )


def main() -> None:
    stop_cleanly_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--personas", type=int, default=20)
    parser.add_argument("--instances", type=int, default=5)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="the server's CPU threads (1 on a busy 2-core machine)")
    parser.add_argument("--max-minutes", type=float, default=float("inf"), help="take no new decision after this")
    parser.add_argument("--result-name", default="llm_page_sensitivity")
    args = parser.parse_args()
    load = os.getloadavg()
    result = asyncio.run(run(args))
    result["load_average_at_start"] = [round(x, 2) for x in load]
    result["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    result["command"] = command(args)
    write_result(args.result_name, result)


if __name__ == "__main__":
    main()
