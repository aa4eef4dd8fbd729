"""`twinsim eval` on the real sessions available here: the 218 OPeRA timelines (train side of the full
release, Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0), page-free, for every offline brain and the
persona ablation. Writes benchmarks/results/timelines_eval.json.

The timelines have click types but no element names, pages or input texts, so they are written out as an
OPeRA action table whose clicks are named by click type (`<click_type>`); exact match is therefore not
meaningful and is not reported. Benchmark mapping as in the embedded-brain issue: clicks and inputs are
actions, scrolls / navigations / tab switches are dropped, and a session that does not end in a purchase
click ends in a terminate. The embedded brain was calibrated on these same sessions, so its figures here
are in-sample; its held-out (leave-users-out) figures are in params.json's `cross_validation`.

Run: .venv/bin/python benchmarks/timelines_eval.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd
from _common import SHARED_OPERA, write_result
from rich.console import Console

from service.cli.evaluation import run_eval_command

KEYS = (
    "n",
    "action_type_macro_f1",
    "action_type_weighted_f1",
    "click_type_weighted_f1",
    "fine_grained_accuracy",
    "outcome_accuracy",
    "outcome_weighted_f1",
)


def timelines_table(out: Path) -> Path:
    with open(SHARED_OPERA / "personas.jsonl") as personas:
        users = {json.loads(line)["user_id"][:8]: json.loads(line)["user_id"] for line in personas}
    rows = []
    with open(SHARED_OPERA / "timelines.jsonl") as timelines:
        for line in timelines:
            session = json.loads(line)
            actions = [a for a in session["actions"] if a["action_type"] in ("click", "input")]
            if not actions:
                continue
            user = users.get(session["user_prefix"], session["user_prefix"])
            session_id = f"{user}_{session['start']}_{session['session_key'][-24:]}"
            for _i, action in enumerate(actions):
                rows.append(
                    {
                        "session_id": session_id,
                        "timestamp": action["timestamp"],
                        "action_type": action["action_type"],
                        "click_type": action["click_type"],
                        "input_text": "",
                        "semantic_id": "nav_bar.search_input"
                        if action["action_type"] == "input"
                        else f"<{action['click_type']}>",
                    }
                )
            if actions[-1]["click_type"] != "purchase":
                rows.append(
                    {
                        "session_id": session_id,
                        "timestamp": None,
                        "action_type": "terminate",
                        "click_type": None,
                        "input_text": "",
                        "semantic_id": None,
                    }
                )
    pd.DataFrame(rows).to_json(out, orient="records", lines=True)
    return out


def main() -> None:
    console = Console(quiet=True)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        table = timelines_table(Path(tmp) / "timelines_actions.jsonl")
        for label, brain, ablate in (
            ("embedded", "embedded", frozenset()),
            ("embedded without persona", "embedded", frozenset({"persona"})),
            ("repeat-previous", "repeat-previous", frozenset()),
            ("majority", "majority", frozenset()),
        ):
            report = run_eval_command(
                actions=table,
                users=SHARED_OPERA / "personas.jsonl",
                brain=brain,
                model=None,
                ablate=ablate,
                sessions=None,
                limit=None,
                concurrency=1,
                out=None,
                html=None,
                checkpoint=None,
                console=console,
            )
            results[label] = {k: report["metrics"][k] for k in KEYS} | {
                "n_sessions": report["run"]["n_sessions"],
                "latency_p50_ms": report["run"]["latency"]["p50_ms"],
            }
            print(label, json.dumps(results[label]))
    write_result(
        "timelines_eval",
        {
            "data": "shared/data/opera/timelines.jsonl (218 sessions), page-free",
            "note": "embedded figures are in-sample (calibrated on these sessions); exact match "
            "not reported (no element names in the timelines)",
            "results": results,
        },
    )


if __name__ == "__main__":
    main()
