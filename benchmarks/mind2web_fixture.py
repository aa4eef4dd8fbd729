"""The embedded brain through `twinsim eval --format mind2web` on the Multimodal-Mind2Web-format FIXTURE
(tests/support/mind2web_fixture.py: four tasks on pages written for the tests from the documented layout, not the
real data, which is not reachable here). It shows the command runs end to end and what the brain does with a task
on pages of that shape; it is not a Multimodal-Mind2Web result and must not be compared with the published ones.
Writes benchmarks/results/mind2web_fixture.json. Run: .venv/bin/python benchmarks/mind2web_fixture.py
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from _common import write_result
from typer.testing import CliRunner

from service.cli.main import app
from tests.support.mind2web_fixture import write_parquet

if __name__ == "__main__":
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_parquet(root / "data")
        out = root / "report.json"
        result = CliRunner().invoke(
            app,
            ["eval", "--format", "mind2web", str(root / "data"), "--out", str(out)],
            env={"TWINSIM_DATA_DIR": str(root / "store"), "HF_HUB_OFFLINE": "1"},
        )
        if result.exit_code != 0:
            raise SystemExit(result.output)
        report = json.loads(out.read_text())
        steps = [json.loads(line) for line in (root / "report.steps.jsonl").read_text().splitlines()]
    write_result(
        "mind2web_fixture",
        {
            "data": "FIXTURE built from the documented Multimodal-Mind2Web layout (tests/support/mind2web_fixture.py), "
            "not the real data; not comparable with published results",
            "command": "twinsim eval --format mind2web <fixture parquet dir>",
            "brain": "embedded",
            "splits": report["splits"],
            "latency": report["run"]["latency"],
            "steps": [
                {
                    k: s.get(k)
                    for k in (
                        "annotation_id",
                        "step",
                        "gold_operation",
                        "predicted_operation",
                        "element_correct",
                        "operation_f1",
                    )
                }
                for s in steps
            ],
            "load_average_1m": round(load, 2),
        },
    )
