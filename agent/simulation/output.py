"""A finished simulation on disk: report.json (everything), report.html (for people), one
traces/<persona>.json per twin (to diff runs or load one twin's steps), and the decision export
(decisions.jsonl, decisions.parquet, pages/: one row per step, each page read stored once; agent/exports)."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path

from agent.exports.run_export import RunExport
from agent.reporting.simulation_report import render_simulation_html
from agent.simulation.run import SimulationResult
from personas.persona import Persona


def load_writers() -> None:
    """Import ahead what writing the outputs imports on first use, for a caller with time to spare before: pandas
    (pyarrow's first table imports it, 0.2-0.5 s here) and plotly's chart classes (the report's, about 0.2 s)."""
    import pandas  # noqa: F401 - imported for its side effect: loaded once, here

    from agent.reporting.charts import load_plotly

    load_plotly()


def write_outputs(
    result: SimulationResult, out_dir: Path, personas: Sequence[Persona] = (), run_id: str | None = None
) -> dict[str, Path]:
    """`personas` give the export's rows who each twin is; `run_id` names the run (default: the directory's name)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = result.model_dump(mode="json")
    paths = {"json": out_dir / "report.json", "html": out_dir / "report.html"}
    paths["json"].write_text(json.dumps(data, indent=2, ensure_ascii=False))
    paths["html"].write_text(render_simulation_html(data, inline_screenshots(data, out_dir)))
    traces = out_dir / "traces"
    traces.mkdir(exist_ok=True)
    for trace in data["traces"]:
        (traces / f"{trace['persona_id']}.json").write_text(json.dumps(trace, indent=2, ensure_ascii=False))
    paths["decisions"] = write_decisions(result, out_dir, personas, run_id or out_dir.name)
    return paths


MAX_INLINE_SCREENSHOT_BYTES = 40_000_000  # above this the report links its screenshots instead of carrying them


def inline_screenshots(data: dict, out_dir: Path, cap: int = MAX_INLINE_SCREENSHOT_BYTES) -> dict[str, str]:
    """Each step's screenshot as a data: URI, so report.html opens as one file with its pictures; empty (the report
    links the PNG files beside it, and says so) when they would make the report larger than `cap` bytes."""
    files = {
        step["screenshot"]: out_dir / step["screenshot"]
        for trace in data["traces"]
        for step in trace["steps"]
        if step.get("screenshot")
    }
    present = {name: path for name, path in files.items() if path.is_file()}
    if sum(path.stat().st_size for path in present.values()) * 4 // 3 > cap:
        return {}
    return {
        name: "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
        for name, path in present.items()
    }


def write_decisions(result: SimulationResult, out_dir: Path, personas: Sequence[Persona], run_id: str) -> Path:
    """The decision export of a simulation, written afresh; the pages, once stored, leave the traces' memory."""
    export = RunExport(out_dir, run_id=run_id, run_kind="simulation", personas={p.id: p for p in personas}, fresh=True)
    for trace in result.traces:
        export.append(export.rows([step.decision() for step in trace.steps], persona_id=trace.persona_id))
        for step in trace.steps:
            step.page_html = None
    export.finish()
    return export.directory / "decisions.parquet"
