"""The HTML page of a `twinsim eval --format mind2web` report: per split, our figures beside the published ones.
Built with the report kit (no charts, so no script)."""

from __future__ import annotations

from agent.reporting.kit import Html, esc, methods, page, paragraph, pct, section, table

METRICS = (
    ("element_accuracy", "element accuracy"),
    ("operation_f1", "operation F1"),
    ("step_success_rate", "step success rate"),
    ("task_success_rate", "task success rate"),
)


def render_mind2web_report(report: dict) -> str:
    run = report.get("run") or {}
    ours = f"twinsim {run.get('brain', '?')}" + (f" ({run['model']})" if run.get("model") else "") + " (this run)"
    body: list[object] = [
        Html(f"<h1>twinsim on Multimodal-Mind2Web: {esc(ours)}</h1>"),
        Html(
            "<p>"
            + esc(f"{run.get('n_steps', 0)} steps; no persona; the task (")
            + "<code>confirmed_task</code>"
            + esc(") and the previous steps (")
            + "<code>action_reprs</code>"
            + esc(
                ") given at each step. Figures are averaged per task, then over tasks. Candidates: "
                f"{run.get('candidates', '')}. The published systems saw MindAct's top 50 ranked candidates instead."
            )
            + "</p>"
        ),
    ]
    numeric = tuple(range(1, 1 + len(METRICS)))
    for split, metrics in (report.get("splits") or {}).items():
        rows = [[ours] + [pct(metrics.get(key)) for key, _ in METRICS]]
        for row in report.get("published") or []:
            theirs = (row.get("splits") or {}).get(split)
            if theirs:
                rows.append([f"{row['system']} [{row['source']}]"] + [pct(theirs.get(key)) for key, _ in METRICS])
        micro = metrics.get("micro") or {}
        body.append(
            section(
                split,
                paragraph(
                    f"{metrics.get('n_tasks', 0)} tasks, {metrics.get('n_steps', 0)} steps, of which "
                    f"{metrics.get('steps_without_positive', 0)} have no true element left in the cleaned page (scored "
                    "0). "
                    f"Per step (micro): element accuracy {pct(micro.get('element_accuracy'))}, operation F1 "
                    f"{pct(micro.get('operation_f1'))}, step success {pct(micro.get('step_success_rate'))}."
                ),
                table(["system"] + [label for _, label in METRICS], rows, numeric=numeric),
            )
        )
    latency, usage = run.get("latency") or {}, run.get("usage") or {}
    body.append(
        section(
            "Run",
            table(
                ["", "value"],
                [
                    ["latency p50 / p95 (ms)", f"{latency.get('p50_ms', 'n/a')} / {latency.get('p95_ms', 'n/a')}"],
                    ["LLM calls / tokens", f"{usage.get('calls', 0)} / {usage.get('total_tokens', 0)}"],
                    ["cost (USD)", f"{usage.get('cost_usd', 0):.4f}"],
                    ["fallbacks to the embedded brain", run.get("fallbacks", 0)],
                    ["pages over the page limits (scored 0)", run.get("pages_refused", 0)],
                    ["started / finished", f"{run.get('started', '')} / {run.get('finished', '')}"],
                ],
            ),
        )
    )
    body.append(
        methods(
            "Mind2Web's protocol, as Multimodal-Mind2Web / SeeAct report it (Zheng et al. 2024, arXiv 2401.01614): "
            "element accuracy is the share of steps whose chosen element is one of the step's true candidates; "
            "operation "
            "F1 is the token-set F1 of the predicted and true operation strings (CLICK, TYPE <value>, SELECT <value>); "
            "a "
            "step succeeds when the element is right and the operation F1 is 1, a task when every step does. A step "
            "whose "
            "true element did not survive cleaning scores 0. Published rows are the papers' own figures, not re-run "
            "here (agent/evaluation/mind2web_metrics.py)."
        )
    )
    return page("twinsim on Multimodal-Mind2Web", body, footer=report.get("citation", ""), charts=False)
