"""`twinsim eval`: load recorded sessions and personas, replay them through the twin graph, write reports."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import cast

from pydantic import ValidationError
from rich.console import Console
from tqdm import tqdm

from agent.brains.names import BrainName
from agent.evaluation.runner import ABLATIONS, EvalConfig, evaluate
from agent.executors.ray_units import RayExecutor, RayUnavailable
from agent.graph import TwinGraph
from agent.llm.opera_protocol import PROTOCOL_STYLES
from agent.predict_options import GroundingStrategy, PromptStyle, VisionPolicy
from agent.recorded_sessions import read_action_table
from personas.open_store import open_memory_store
from personas.sources import PersonaSourceError, load_personas
from service.container import build_brains, build_llm_client
from service.settings import Settings


def _eval_store(settings: Settings, personas: list, console: Console):
    """A store kept beside the user's own (data_dir/eval-store), so evaluations never touch it; re-imports only
    changes."""
    store = open_memory_store(path=settings.data_dir / "eval-store")
    for persona in personas:
        if not store.has_persona(persona.id) or store.get_persona(persona.id) != persona:
            store.put_persona(persona)
    console.print(f"{len(personas)} personas ready in {settings.data_dir / 'eval-store'}")
    return store


def _step_executor(settings: Settings, brain: str, console: Console):
    """TWINSIM_EXECUTOR=ray sends the steps to Ray; the llm brain stays here (the provider, not the CPU, bounds it)."""
    if settings.executor != "ray":
        return None
    if brain == BrainName.LLM:
        console.print("the llm brain runs in this process (--concurrency calls at a time), not on Ray")
        return None
    return RayExecutor(settings.ray_address)


def run_eval_command(
    *,
    actions: Path,
    users: Path,
    brain: str,
    model: str | None,
    ablate: frozenset[str],
    sessions: list[str] | None,
    limit: int | None,
    concurrency: int,
    out: Path | None,
    html: Path | None,
    checkpoint: Path | None,
    console: Console,
    prompt_style: str | None = None,
    grounding: str | None = None,
    vision: str | None = None,
    screenshots: bool = False,
) -> dict:
    unknown = ablate - set(ABLATIONS)
    if unknown:
        raise ValueError(f"unknown ablation(s) {sorted(unknown)}; choose from {', '.join(ABLATIONS)}")
    for path, what in ((actions, "--actions"), (users, "--users")):
        if not path.exists():
            raise ValueError(f"{what} {path}: no such file or directory")
    settings = Settings()
    llm = build_llm_client(settings, cache_path=settings.data_dir / "llm-cache.sqlite")
    brains = build_brains(settings, llm)
    if brain == BrainName.LLM and not (model or settings.llm_model):
        raise ValueError("--brain llm needs --model (or TWINSIM_LLM_MODEL)")
    recorded = read_action_table(
        actions, sessions=set(sessions) if sessions else None, limit=limit, screenshots=screenshots
    )
    if not recorded:
        raise ValueError(f"{actions}: no sessions to evaluate (check --sessions)")
    try:
        personas = load_personas(users)
    except (PersonaSourceError, ValidationError) as error:
        raise ValueError(f"{users}: {error}") from error
    protocol = (prompt_style or settings.llm_prompt_style) in PROTOCOL_STYLES and brain == BrainName.LLM
    needs_memory = not ({"persona", "memory"} & ablate) and not protocol  # the protocol's prompt shows no memories
    store = _eval_store(settings, personas, console) if needs_memory else None
    graph = TwinGraph(brains, memory=store)
    if checkpoint is None and out is not None:
        checkpoint = out.with_suffix(".checkpoint.jsonl")
    config = EvalConfig(
        brain=brain,
        model=model or (settings.llm_model if brain == BrainName.LLM else None),
        ablate=ablate,
        concurrency=concurrency,
        checkpoint=checkpoint,
        fingerprint_extra={
            "actions": str(actions.resolve()),
            "users": str(users.resolve()),
            "sessions": sessions,
            "limit": limit,
        },
        # the options' callbacks (service/cli/main.py) checked each against its choices
        prompt_style=cast("PromptStyle | None", prompt_style),
        grounding=cast("GroundingStrategy | None", grounding),
        vision=cast("VisionPolicy | None", vision),
        screenshots=screenshots,
    )
    total = sum(len(s.steps) for s in recorded)
    executor = _step_executor(settings, brain, console)
    console.print(
        f"evaluating {total} steps of {len(recorded)} sessions with the {brain} brain"
        + (f" ({config.model})" if config.model else "")
        + (f", ablations: {sorted(ablate)}" if ablate else "")
        + (f", prompt style {prompt_style}" if prompt_style else "")
        + (f", grounding {grounding}" if grounding else "")
        + (
            f", screenshots: {sum(s.screenshot is not None for x in recorded for s in x.steps)} of {total} steps"
            if screenshots
            else ""
        )
        + (" as Ray tasks" if executor is not None else "")
    )
    with tqdm(total=total, unit="step", disable=None) as bar:
        try:
            report = asyncio.run(
                evaluate(recorded, {p.id: p for p in personas}, graph, config, on_step=bar.update, executor=executor)
            )
        except RayUnavailable as error:
            raise ValueError(str(error)) from None
    report["run"].update(
        {
            "actions": str(actions),
            "users": str(users),
            "llm_totals": llm.totals.as_dict() if brain == BrainName.LLM else None,
        }
    )
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")
        console.print(f"report: {out}")
    if html:
        from agent.reporting.eval_report import render_eval_report

        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(render_eval_report(report))
        console.print(f"html report: {html}")
    return report
