"""The HTML page of a `twinsim eval` report: headline metrics beside the published ones, confusion matrices,
distributions, per-class F1, the OPeRA Table 6 error breakdown and the run's cost and latency."""

from __future__ import annotations

from html import escape

from agent.reporting.svg_charts import bar_chart, heatmap

HEADLINE = (("exact_match", "exact match"), ("action_type_macro_f1", "action-type macro F1"),
            ("action_type_weighted_f1", "action-type weighted F1"), ("click_type_weighted_f1", "click-type weighted F1"),
            ("fine_grained_accuracy", "fine-grained accuracy"), ("outcome_accuracy", "outcome accuracy"),
            ("outcome_weighted_f1", "outcome weighted F1"))
CITATION = ('OPeRA: Wang et al. 2025, "OPeRA: A Dataset of Observation, Persona, Rationale, and Action for Evaluating '
            'LLMs on Human Online Shopping Behavior Simulation", arXiv 2506.05606, CC-BY-4.0.')
STYLE = ("body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}table{border-collapse:collapse;"
         "margin:8px 0 20px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th:first-child,td:first-child"
         "{text-align:left}h2{margin-top:28px;border-bottom:1px solid #ddd}.charts{display:flex;flex-wrap:wrap;gap:24px}"
         "footer{margin-top:32px;font-size:12px;color:#555}")


def pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _distribution_chart(dist: dict, title: str) -> str:
    gold, predicted = dist.get("gold") or {}, dist.get("predicted") or {}
    labels = sorted(set(gold) | set(predicted), key=lambda k: -(gold.get(k, 0)))
    if not labels:
        return ""
    return bar_chart(labels, {"gold": [gold.get(k, 0) for k in labels], "predicted": [predicted.get(k, 0) for k in labels]}, title)


def render_eval_report(report: dict) -> str:
    metrics = report.get("metrics") or {}
    run = report.get("run") or {}
    ours = f"twinsim {run.get('brain', '?')}" + (f" ({run['model']})" if run.get("model") else "")
    rows = [[ours + " (this run)", run.get("task", "n/a")] + [pct(metrics.get(k)) for k, _ in HEADLINE]]
    for row in report.get("published") or []:
        rows.append([f"{row.get('system')} [{row.get('source')}]", row.get("task", "")] + [pct(row.get(k)) for k, _ in HEADLINE])
    sections = [f"<h1>twinsim evaluation: {escape(ours)}</h1>",
                f"<p>{metrics.get('n', 0)} steps in {metrics.get('n_sessions', 0)} sessions; ablations: "
                f"{escape(', '.join(run.get('ablations') or []) or 'none')}.</p>",
                "<h2>Headline metrics</h2>", _table(["system", "task"] + [label for _, label in HEADLINE], rows)]
    confusion = metrics.get("confusion") or {}
    charts = [heatmap(c["labels"], c["matrix"], f"{name.replace('_', ' ')} confusion")
              for name, c in confusion.items() if c and c.get("labels")]
    sections += ["<h2>Confusion matrices</h2>", f'<div class="charts">{"".join(charts)}</div>']
    dists = metrics.get("distributions") or {}
    sections += ["<h2>Predicted versus gold</h2>", '<div class="charts">'
                 + _distribution_chart(dists.get("action_type") or {}, "action types")
                 + _distribution_chart(dists.get("click_type") or {}, "click types") + "</div>"]
    per_class = (metrics.get("per_class") or {})
    for name in ("action_type", "click_type"):
        classes = per_class.get(name) or {}
        sections += [f"<h2>Per-class F1: {name.replace('_', ' ')}</h2>",
                     _table(["label", "precision", "recall", "F1", "support"],
                            [[k, pct(v.get("precision")), pct(v.get("recall")), pct(v.get("f1")), v.get("support", 0)]
                             for k, v in classes.items()])]
    errors = metrics.get("errors") or {}
    sections += ["<h2>Errors (OPeRA Table 6 categories)</h2>",
                 _table(["error", "count", "share of steps"],
                        [[k.replace("_", " "), v.get("count", 0), pct(v.get("fraction"))] for k, v in errors.items()])]
    latency, usage = run.get("latency") or {}, run.get("usage") or {}
    sections += ["<h2>Run</h2>", _table(["", "value"], [
        ["latency p50 / p95 (ms)", f"{latency.get('p50_ms', 'n/a')} / {latency.get('p95_ms', 'n/a')}"],
        ["LLM calls / tokens", f"{usage.get('calls', 0)} / {usage.get('total_tokens', 0)}"],
        ["cost (USD)", f"{usage.get('cost_usd', 0):.4f}"], ["fallbacks to the embedded brain", run.get("fallbacks", 0)],
        ["sessions without a persona", len(run.get("sessions_without_persona") or [])],
        ["started / finished", f"{run.get('started', '')} / {run.get('finished', '')}"]])]
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>twinsim evaluation</title><style>{STYLE}</style>"
            f"</head><body>{''.join(sections)}<footer>{escape(CITATION)}</footer></body></html>")
