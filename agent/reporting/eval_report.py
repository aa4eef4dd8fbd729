"""The HTML page of a `twinsim eval` report: headline metrics beside the published ones, confusion matrices,
distributions, per-class F1, the OPeRA Table 6 error breakdown, the run's cost and latency, and how it was
measured. Built with the report kit: one file, charts inline, every label escaped."""

from __future__ import annotations

from agent.reporting import charts
from agent.reporting.kit import Html, esc, methods, page, paragraph, pct, section, table

HEADLINE = (
    ("exact_match", "exact match"),
    ("action_type_macro_f1", "action-type macro F1"),
    ("action_type_weighted_f1", "action-type weighted F1"),
    ("click_type_weighted_f1", "click-type weighted F1"),
    ("fine_grained_accuracy", "fine-grained accuracy"),
    ("outcome_accuracy", "outcome accuracy"),
    ("outcome_weighted_f1", "outcome weighted F1"),
)
CITATION = (
    'OPeRA: Wang et al. 2025, "OPeRA: A Dataset of Observation, Persona, Rationale, and Action for Evaluating '
    'LLMs on Human Online Shopping Behavior Simulation", arXiv 2506.05606, CC-BY-4.0.'
)


def _distribution_chart(chart_id: str, dist: dict, title: str) -> Html:
    gold, predicted = dist.get("gold") or {}, dist.get("predicted") or {}
    labels = sorted(set(gold) | set(predicted), key=lambda k: (-(gold.get(k, 0)), k))
    if not labels:
        return Html("")
    return charts.grouped_bars(
        chart_id,
        title,
        "Steps per label: the gold actions beside the predicted ones.",
        labels,
        {"gold": [gold.get(k, 0) for k in labels], "predicted": [predicted.get(k, 0) for k in labels]},
    )


def render_eval_report(report: dict) -> str:
    metrics = report.get("metrics") or {}
    run = report.get("run") or {}
    ours = f"twinsim {run.get('brain', '?')}" + (f" ({run['model']})" if run.get("model") else "")
    rows = [[ours + " (this run)", run.get("task", "n/a")] + [pct(metrics.get(k)) for k, _ in HEADLINE]]
    for row in report.get("published") or []:
        rows.append(
            [f"{row.get('system')} [{row.get('source')}]", row.get("task", "")] + [pct(row.get(k)) for k, _ in HEADLINE]
        )
    numeric = tuple(range(2, 2 + len(HEADLINE)))
    body: list[object] = [
        Html(f"<h1>twinsim evaluation: {esc(ours)}</h1>"),
        paragraph(
            f"{metrics.get('n', 0)} steps in {metrics.get('n_sessions', 0)} sessions; ablations: "
            f"{', '.join(run.get('ablations') or []) or 'none'}."
        ),
        section(
            "Headline metrics", table(["system", "task"] + [label for _, label in HEADLINE], rows, numeric=numeric)
        ),
    ]
    confusion = metrics.get("confusion") or {}
    heatmaps = [
        charts.heatmap(
            f"confusion-{name}",
            f"{name.replace('_', ' ')} confusion",
            "Rows: gold, columns: predicted; shaded by the row's share, the count in each cell.",
            c["labels"],
            c["matrix"],
        )
        for name, c in confusion.items()
        if c and c.get("labels")
    ]
    body.append(section("Confusion matrices", Html(f"<div class='charts'>{''.join(heatmaps)}</div>")))
    dists = metrics.get("distributions") or {}
    body.append(
        section(
            "Predicted versus gold",
            Html(
                "<div class='charts'>"
                + _distribution_chart("distribution-action-type", dists.get("action_type") or {}, "action types")
                + _distribution_chart("distribution-click-type", dists.get("click_type") or {}, "click types")
                + "</div>"
            ),
        )
    )
    per_class = metrics.get("per_class") or {}
    for name in ("action_type", "click_type"):
        classes = per_class.get(name) or {}
        body.append(
            section(
                f"Per-class F1: {name.replace('_', ' ')}",
                table(
                    ["label", "precision", "recall", "F1", "support"],
                    [
                        [k, pct(v.get("precision")), pct(v.get("recall")), pct(v.get("f1")), v.get("support", 0)]
                        for k, v in classes.items()
                    ],
                    numeric=(1, 2, 3, 4),
                ),
            )
        )
    errors = metrics.get("errors") or {}
    body.append(
        section(
            "Errors (OPeRA Table 6 categories)",
            table(
                ["error", "count", "share of steps"],
                [[k.replace("_", " "), v.get("count", 0), pct(v.get("fraction"))] for k, v in errors.items()],
                numeric=(1, 2),
            ),
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
                    ["sessions without a persona", len(run.get("sessions_without_persona") or [])],
                    ["started / finished", f"{run.get('started', '')} / {run.get('finished', '')}"],
                ],
            ),
        )
    )
    body.append(
        methods(
            "OPeRA's next-action prediction: for each recorded step t the twin gets the persona, the gold actions "
            "1..t-1 "
            "with their rationales and the page of step t (none in the page-free task); its prediction is scored "
            "against "
            "what the person did at step t.",
            "Exact match: a click on the same element, an input into the same element with the same text, or a "
            "terminate. Action-type F1 over click / input / terminate; click-type F1 over the steps whose gold action "
            "is a "
            "click; fine-grained accuracy over click types, input and terminate; the outcome figures over each "
            "session's "
            "last step. F1 follows scikit-learn's conventions (weighted by gold support). Errors fall in exactly one "
            "of "
            "OPeRA's Table 6 categories. Published rows are the papers' own figures (source in brackets), not re-run "
            "here. Definitions: docs/evaluation.md.",
            "Latency is the wall time of one prediction; calls, tokens and cost come from the LLM provider's usage "
            "(zero for the embedded brain).",
        )
    )
    return page(f"twinsim evaluation: {ours}", body, footer=CITATION, charts=bool(heatmaps) or bool(dists))
