"""What two live runs of the same seeds on the same site must share: a run's report with what legitimately differs
between two runs taken out, so "identical" means the twins did and read the same things.

Taken out: timings (a step's predict_ms, the run's clock), which Ray node ran a twin, the run's settings block, the
site's origin (each run of a benchmark or test starts its own shop on a free port, so `http://127.0.0.1:52081/dp/X`
and `http://127.0.0.1:50739/dp/X` are the same page: they become `SITE/dp/X`), and a recalled memory's id (it names
the import that stored it, which differs between two data directories holding the same persons; its kind, text and
score stay). Everything else stays: every step's page (its SHA-256), action, click type, rationale, seed, memories,
the outcomes, failures, stages and the funnel.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

SITE = "SITE"
_DROPPED_STEP_FIELDS = ("predict_ms",)


def site_origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def comparable_run(report: dict) -> dict:
    """The traces and funnel of a simulation report (SimulationResult as JSON, or report.json), ready to compare."""
    origin = site_origin(report["config"]["url"])
    text = json.dumps({"traces": report["traces"], "funnel": report["funnel"]}).replace(origin, SITE)
    kept = json.loads(text)
    for trace in kept["traces"]:
        trace.pop("node", None)
        for step in trace["steps"]:
            for name in _DROPPED_STEP_FIELDS:
                step.pop(name, None)
            for memory in step.get("memories", []):
                memory.pop("id", None)
    return kept
