"""`twinsim eval --format mind2web PATH`: score a brain on Multimodal-Mind2Web rows, write the JSON and HTML reports.

Zheng et al. 2024, arXiv 2401.01614 (Multimodal-Mind2Web, SeeAct); Deng et al. 2023, NeurIPS (Mind2Web).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rich.console import Console
from tqdm import tqdm

from agent.brains.names import BrainName
from agent.evaluation.mind2web_rows import dataset_files, iter_steps
from agent.evaluation.mind2web_runner import evaluate_mind2web
from agent.graph import TwinGraph
from agent.predict_options import PredictOptions
from service.container import build_brains, build_llm_client
from service.settings import Settings


def run_mind2web_command(
    *,
    path: Path,
    split: str | None,
    brain: str,
    model: str | None,
    tasks: int | None,
    concurrency: int,
    out: Path | None,
    html: Path | None,
    console: Console,
    grounding: str | None = None,
    vision: str | None = None,
    screenshots: bool = False,
) -> dict:
    """Raises ValueError (Mind2WebFormatError among them) with a message for the user."""
    files = dataset_files(path, split)  # a bad path or split fails before any model loads
    settings = Settings()
    if brain == BrainName.LLM and not (model or settings.llm_model):
        raise ValueError("--brain llm needs --model (or TWINSIM_LLM_MODEL)")
    llm = build_llm_client(settings, cache_path=settings.data_dir / "llm-cache.sqlite")
    graph = TwinGraph(build_brains(settings, llm), memory=None)  # no persona: nothing to recall
    model = model or (settings.llm_model if brain == BrainName.LLM else None)
    splits = sorted({s for _, s in files})
    console.print(
        f"Multimodal-Mind2Web: {len(files)} file(s), split(s) {', '.join(splits)}; {brain} brain"
        + (f" ({model})" if model else "")
        + (f"; at most {tasks} task(s)" if tasks else "")
    )
    log = out.with_suffix(".steps.jsonl") if out is not None else None
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("")
    with tqdm(unit="step", disable=None) as bar:

        def finished(record: dict) -> None:
            bar.update()
            if log is not None:
                with log.open("a") as handle:
                    handle.write(json.dumps(record) + "\n")

        report = asyncio.run(
            evaluate_mind2web(
                iter_steps(files, screenshots),
                graph,
                brain=brain,
                model=model,
                concurrency=concurrency,
                tasks=tasks,
                limits=settings.page_limits,
                on_step=finished,
                options=PredictOptions(grounding=grounding, vision=vision),
            )
        )
    report["run"].update(
        {
            "path": str(path),
            "files": [str(f) for f, _ in files],
            "steps_log": str(log) if log else None,
            "llm_totals": llm.totals.as_dict() if brain == BrainName.LLM else None,
        }
    )
    if not report["splits"]:
        raise ValueError(f"{path}: no rows to evaluate")
    if out is not None:
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")
        console.print(f"report: {out} (steps: {log})")
    if html is not None:
        from agent.reporting.mind2web_report import render_mind2web_report

        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(render_mind2web_report(report))
        console.print(f"html report: {html}")
    return report
