"""The LLM brain on the shipped local model (SmolLM2-135M-Instruct, llama.cpp's server via llama-cpp-python, started
here as `twinsim llm serve` starts it). Writes benchmarks/results/local_llm.json.

1. First-try validity, pages in turn: on each of the sample search page (~100 KB), product page and cart and a
   ~600 KB OPeRA-style page (the search page's grid repeated, benchmarks/observation_speed.page_600kb), OPeRA
   personas (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0) decide one after another, most-likely mode
   (temperature 0), no memories: the share of first answers that parse and name an element of the page (or leave),
   and the mix of action types; first with the schema-constrained answer (TWINSIM_LLM_STRUCTURED_OUTPUT=llama_cpp),
   then without it (off: free text, parsed) for as long as the time allows.
2. Time and tokens per decision on each page, the first decision on a page (the page read cold) apart from the
   later ones (the server reuses the prompt's prefix, the instructions and the page, and reads each twin's own
   part): prompts measured with the server's tokenizer and cut to the context the server was started with;
   llama.cpp's own timings and the server's CPU seconds (benchmarks/local_llm_timings.py).
3. Page sensitivity with the LLM brain: the sample product page against price x2.5 and no reviews
   (benchmarks/page_edits.py), the first N OPeRA personas x M instances, sample mode (temperature 1, seeded), the same
   seeds in every variant; purchase / leave / review-click rates, reported as they come out.

Run: .venv/bin/python benchmarks/local_llm.py [--per-page 52 --free-per-page 52] [--personas 20 --instances 5]
     [--context 4096] [--threads 2]
     [--max-minutes M: stop taking decisions after M minutes, and say how many were reached]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections import Counter
from importlib.metadata import version

from _common import SHARED_OPERA, percentile, stop_cleanly_on_sigterm, write_result
from local_llm_timings import ServerTimings
from observation_speed import page_600kb
from page_edits import MANIPULATIONS, Page

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agent.actions import ClickAction, InputAction
from agent.brain_answer import BrainError
from agent.brains.llm import LLMBrain
from agent.grounding import grounding_error, normalise
from agent.history import Step
from agent.llm.client import LLMClient
from agent.page.click_types import infer_click_type
from agent.page.parse import parse_page
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput
from agent.sample_pages import sample_page
from agent.twin_context import TwinContext
from personas.sources import load_personas
from service.local_model import LocalModelServer, shipped_gguf

SEARCH = [
    Step(action=InputAction(name="nav_bar.search_input", text="usb c cable"), rationale="My old cable frayed."),
    Step(action=ClickAction(name="nav_bar.search_button"), click_type="search"),
]
SAMPLE_SEED = 2_000_000
PRODUCT_LINK = "search_results.anker_usb_c_cable_6ft_nylon_braided_usb_a_to_type_c_charger_cord.product_name"


def pages() -> dict[str, tuple]:
    """name -> (observation, history, bytes)."""
    search = sample_page("search_results.html")
    product = sample_page("product_page.html")
    cart = sample_page("cart.html")
    big = page_600kb()
    on_product = [*SEARCH, Step(action=ClickAction(name=PRODUCT_LINK), click_type="product_link")]
    on_cart = [*on_product, Step(action=ClickAction(name="buybox.purchase_form.add_to_cart"), click_type="purchase")]
    return {
        "search_results (~100 KB)": (
            parse_page(search, url="https://www.amazon.com/s?k=usb+c+cable"),
            SEARCH,
            len(search.encode()),
        ),
        "product_page": (
            parse_page(product, url="https://www.amazon.com/dp/B0TWINSIM1"),
            on_product,
            len(product.encode()),
        ),
        "cart": (parse_page(cart, url="https://www.amazon.com/cart"), on_cart, len(cart.encode())),
        "opera_style_600kb": (parse_page(big, url="https://www.amazon.com/s?k=usb+c+cable"), SEARCH, len(big.encode())),
    }


def first_try(decision_or_error, observation) -> tuple[bool, str, str | None]:
    """(valid and grounded, action type or 'error', why not)."""
    if isinstance(decision_or_error, BrainError):
        return False, "error", str(decision_or_error)[:160]
    decision = decision_or_error
    error = decision.details.get("grounding_error")
    action = normalise(decision.action, observation)
    error = error or grounding_error(action, observation)
    return error is None, action.type, error


async def decide(brain: LLMBrain, ctx: TwinContext):
    try:
        return await brain.decide(ctx)
    except BrainError as error:
        return error


def new_row() -> dict:
    return {k: [] for k in ROW_FIELDS}


ROW_FIELDS = (
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "elements_shown",
    "prompt_build_s",
    "server_cpu_s",
    "prompt_eval_ms",
    "prompt_eval_tokens",
    "cached_prefix_tokens",
    "generation_ms",
    "generated_tokens",
)


def summary(row: dict) -> dict:
    """p50 (and p90 of the latency) of one page's decisions."""
    if not row["latency_s"]:
        return {"decisions": 0}
    return {
        "decisions": len(row["latency_s"]),
        "latency_s_p50": round(percentile(row["latency_s"], 50), 2),
        "latency_s_p90": round(percentile(row["latency_s"], 90), 2),
        "prompt_build_s_p50": round(percentile(row["prompt_build_s"], 50), 3),
        "prompt_tokens_p50": percentile(row["prompt_tokens"], 50),
        "cached_prefix_tokens_p50": percentile(row["cached_prefix_tokens"], 50),
        "prompt_eval_tokens_p50": percentile(row["prompt_eval_tokens"], 50),
        "prompt_eval_s_p50": round(percentile(row["prompt_eval_ms"], 50) / 1000, 2),
        "completion_tokens_p50": percentile(row["completion_tokens"], 50),
        "generation_s_p50": round(percentile(row["generation_ms"], 50) / 1000, 2),
        "server_cpu_s_p50": percentile(row["server_cpu_s"], 50),
        "server_cpu_s_total": round(sum(row["server_cpu_s"]), 1),
        "elements_shown_p50": percentile(row["elements_shown"], 50),
    }


async def run_arm(
    name: str,
    brain: LLMBrain,
    personas,
    per_page: int,
    server: ServerTimings,
    deadline: float,
    loads: list,
    rounds: int = 1,
    mode: str = "most_likely",
    only: tuple[str, ...] = (),
) -> dict:
    """Every page in turn, `per_page` personas on each one after another (page order: the server reads a page
    once and then each twin's own part), until done or the deadline; in `rounds` rounds, each visiting every page
    with its share of the personas, so that a run cut short by the deadline has still seen every page. Per page:
    the first decision of a visit (the page read cold) and the later ones (the page's prefix reused) apart."""
    book = {k: v for k, v in pages().items() if not only or any(word in k for word in only)}
    valid, n = 0, 0
    types: Counter = Counter()
    errors: Counter = Counter()
    examples: list[dict] = []
    rationales: Counter = Counter()  # a small model may write one sentence for everyone
    started = time.perf_counter()
    rows = {page_name: (new_row(), new_row(), Counter()) for page_name in book}
    share = -(-per_page // rounds)
    visits = [
        (page_name, personas[r * share : min(per_page, (r + 1) * share)]) for r in range(rounds) for page_name in book
    ]
    for page_name, visitors in visits:
        observation, history, size = book[page_name]
        first, later, page_types = rows[page_name]
        for visit_n, persona in enumerate(visitors, start=1):
            if time.perf_counter() > deadline:
                break
            options = (
                PredictOptions(mode="sample", seed=SAMPLE_SEED + 1_000 * len(page_name) + visit_n)
                if mode == "sample"
                else PredictOptions()
            )
            ctx = TwinContext.on_page(persona, observation, PredictionInput(history=history, options=options))
            server.start()
            began = time.perf_counter()
            result = await decide(brain, ctx)
            total = time.perf_counter() - began
            spent = server.finish()
            ok, kind, why = first_try(result, observation)
            n += 1
            valid += ok
            types[kind if ok else f"invalid ({kind})"] += 1
            page_types[kind if ok else f"invalid ({kind})"] += 1
            page_types["valid"] += ok
            if not ok:
                errors[(why or "")[:70]] += 1
            if not isinstance(result, BrainError):
                rationales[result.rationale.strip()] += 1
                row = first if visit_n == 1 else later
                row["latency_s"].append(result.details["latency_s"])
                row["prompt_build_s"].append(total - result.details["latency_s"])
                row["prompt_tokens"].append(result.usage.prompt_tokens)
                row["completion_tokens"].append(result.usage.completion_tokens)
                row["elements_shown"].append(result.details["context"]["elements_shown"])
                row["server_cpu_s"].append(spent.cpu_s)
                row["prompt_eval_ms"].append(spent.prompt_eval_ms or 0.0)
                row["prompt_eval_tokens"].append(spent.prompt_eval_tokens or 0)
                row["cached_prefix_tokens"].append(spent.cached_prefix_tokens)
                row["generation_ms"].append(spent.generation_ms or 0.0)
                row["generated_tokens"].append(spent.generated_tokens or 0)
                if len(examples) < 12 and visit_n <= 3:
                    examples.append(
                        {
                            "page": page_name,
                            "rationale": result.rationale[:200],
                            "action": result.action.model_dump(),
                            "choice": result.details.get("choice"),
                            "raw": result.details["raw"][:300],
                            "valid": ok,
                        }
                    )
            if n % 10 == 0:
                loads.append([round(x, 2) for x in os.getloadavg()])
                print(f"{name}: {n} decisions, {valid} valid, {round(time.perf_counter() - started)} s", flush=True)
    per_page_out = {}
    for page_name, (first, later, page_types) in rows.items():
        observation, _, size = book[page_name]
        page_valid = page_types.pop("valid", 0)
        per_page_out[page_name] = {
            "bytes": size,
            "elements_on_page": len(observation.candidates),
            "decisions": sum(page_types.values()),
            "first_try_valid": page_valid,
            "action_mix": dict(page_types),
            "first_decision_of_a_visit": summary(first),
            "later_decisions_of_a_visit": summary(later),
        }
    return {
        "decisions": n,
        "first_try_valid": valid,
        "share": round(valid / n, 4) if n else None,
        "action_mix": dict(types),
        "why_invalid": dict(errors.most_common(8)),
        "distinct_rationales": len(rationales),
        "most_repeated_rationales": [[text[:160], count] for text, count in rationales.most_common(3)],
        "examples": examples,
        "seconds": round(time.perf_counter() - started, 1),
        "per_page": per_page_out,
    }


def outcome(action, observation) -> str:
    if action.type == "terminate":
        return "leave"
    if action.type == "input":
        return "input"
    candidate = observation.by_name.get(action.name)
    kind = candidate.click_type if candidate is not None else infer_click_type(action.name)
    return {"purchase": "purchase", "review": "review"}.get(kind, f"click:{kind}")


async def sensitivity(brain: LLMBrain, personas, instances: int) -> dict:
    product = sample_page("product_page.html")
    base = Page.make(
        "sample product page", "project-made", "agent/sample_pages/product_page.html", "product", product, None
    )
    variants = {
        "control": base.html,
        "price_x2.5": MANIPULATIONS["price_x2.5"](base),
        "no_reviews": MANIPULATIONS["no_reviews"](base),
    }
    history = [*SEARCH, Step(action=ClickAction(name=PRODUCT_LINK), click_type="product_link")]
    out: dict = {}
    for name, html in variants.items():
        observation = parse_page(html, url="https://www.amazon.com/dp/B0TWINSIM1")
        counts: Counter = Counter()
        started = time.perf_counter()
        for p, persona in enumerate(personas):
            for i in range(instances):
                ctx = TwinContext.on_page(
                    persona,
                    observation,
                    PredictionInput(
                        history=history, options=PredictOptions(mode="sample", seed=1_000_000 + 1_000 * p + i)
                    ),
                )
                result = await decide(brain, ctx)
                ok, _, _ = first_try(result, observation)
                counts[outcome(normalise(result.action, observation), observation) if ok else "invalid"] += 1
        n = sum(counts.values())
        out[name] = {
            "decisions": n,
            "outcomes": dict(counts),
            "purchase_rate": round(counts["purchase"] / n, 4),
            "leave_rate": round(counts["leave"] / n, 4),
            "review_rate": round(counts["review"] / n, 4),
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(f"sensitivity {name}: {out[name]}", flush=True)
    return out


async def run(args) -> dict:
    personas = load_personas(SHARED_OPERA / "personas.jsonl")[args.persona_offset :]
    gguf = shipped_gguf()
    with LocalModelServer(gguf=gguf, context_tokens=args.context, threads=args.threads) as server:

        def brain(structured: str, temperature: float = 1.0) -> LLMBrain:
            client = LLMClient(api_base=server.api_base, timeout_s=600, retries=0, concurrency=1)
            return LLMBrain(
                client,
                server.model,
                structured_output=structured,
                context_tokens=args.context,
                sample_temperature=temperature,
                grounding=args.grounding,
            )

        result: dict = {
            "model": {
                "gguf": gguf.name,
                "bytes": gguf.stat().st_size,
                "context_tokens": args.context,
                "threads": args.threads,
                "server": f"llama-cpp-python {version('llama_cpp_python')} (python -m llama_cpp.server)",
                "server_flags": server.command()[3:],
            },
            "grounding": args.grounding,
            "mode": (
                "most likely (temperature 0)"
                if args.mode == "most_likely"
                else "sample (temperature 1, seeded per persona and page)"
            ),
        }
        started = time.perf_counter()
        assert server.log_path is not None and server.process is not None  # started
        timings = ServerTimings(server.log_path, server.process.pid)
        deadline = started + args.max_minutes * 60
        loads: list = []
        result["load_average_every_10_decisions"] = loads

        def arm(name: str, structured: str, per_page: int):
            pages_named = tuple(args.pages)
            return run_arm(
                name,
                brain(structured),
                personas,
                per_page,
                timings,
                deadline,
                loads,
                args.rounds,
                args.mode,
                pages_named,
            )

        result["validity"] = {"schema": await arm("schema", "llama_cpp", args.per_page)}
        if args.free_per_page:
            result["validity"]["no_schema"] = await arm("no_schema", "off", args.free_per_page)
        result["validity_seconds"] = round(time.perf_counter() - started, 1)
        if args.personas and args.instances and time.perf_counter() < deadline:
            result["page_sensitivity"] = {
                "personas": args.personas,
                "instances": args.instances,
                "mode": "sample (temperature 1, seeded), schema-constrained",
                "variants": await sensitivity(brain("llama_cpp"), personas[: args.personas], args.instances),
            }
    return result


def main() -> None:
    stop_cleanly_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--per-page", type=int, default=52, help="personas deciding on each of the four pages, schema-constrained"
    )
    parser.add_argument(
        "--persona-offset",
        type=int,
        default=0,
        help="skip this many personas: a second run, on its own server, takes the rest (two runs use both cores)",
    )
    parser.add_argument("--result-name", default="local_llm", help="benchmarks/results/NAME.json")
    parser.add_argument(
        "--rounds", type=int, default=1, help="visit every page this many times, each with its share of the personas"
    )
    parser.add_argument(
        "--free-per-page", type=int, default=52, help="then the same without the schema (free text, parsed)"
    )
    parser.add_argument(
        "--grounding",
        choices=("names", "textual_choices"),
        default="textual_choices",
        help="textual_choices: a multiple choice whose option decides the action's type (leaving is the last option); "
        "names: the element's name after a type word",
    )
    parser.add_argument(
        "--mode",
        choices=("most_likely", "sample"),
        default="most_likely",
        help="the validity arms' decisions: temperature 0, or the brain's own sampling (temperature 1, seeded)",
    )
    parser.add_argument(
        "--pages", nargs="*", default=[], help="only the pages whose name holds one of these words (default: all four)"
    )
    parser.add_argument("--personas", type=int, default=20)
    parser.add_argument("--instances", type=int, default=5)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument(
        "--max-minutes",
        type=float,
        default=float("inf"),
        help="take no new decision after this many minutes (a shared machine); the result says how many it reached",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="the server's CPU threads: 1 on a busy 2-core machine "
        "(two threads wait on each other whenever one is descheduled)",
    )
    args = parser.parse_args()
    load = os.getloadavg()
    result = asyncio.run(run(args))
    result["load_average_at_start"] = [round(x, 2) for x in load]
    result["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    result["command"] = (
        f"benchmarks/local_llm.py --per-page {args.per_page} --rounds {args.rounds} "
        f"--persona-offset {args.persona_offset} --result-name {args.result_name} "
        f"--free-per-page {args.free_per_page} --grounding {args.grounding} --mode {args.mode} "
        + (f"--pages {' '.join(args.pages)} " if args.pages else "")
        + f"--personas {args.personas} "
        f"--instances {args.instances} --context {args.context} --threads {args.threads}"
        + (f" --max-minutes {args.max_minutes:g}" if args.max_minutes != float("inf") else "")
    )
    write_result(args.result_name, result)


if __name__ == "__main__":
    main()
