"""A finished simulation on disk: report.json (everything), report.html (for people), and one
traces/<persona>.json per twin (to diff runs or load one twin's steps)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.browsing.simulation import SimulationResult
from agent.browsing.report import render_simulation_html


def write_outputs(result: SimulationResult, out_dir: Path) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    data = result.model_dump(mode="json")
    paths = {"json": out_dir / "report.json", "html": out_dir / "report.html"}
    paths["json"].write_text(json.dumps(data, indent=2, ensure_ascii=False))
    paths["html"].write_text(render_simulation_html(data))
    traces = out_dir / "traces"
    traces.mkdir(exist_ok=True)
    for trace in data["traces"]:
        (traces / f"{trace['persona_id']}.json").write_text(json.dumps(trace, indent=2, ensure_ascii=False))
    return paths
