"""The HTML page of a comparison of two runs (agent/comparison/run_comparison.py): what differed in their setup,
whether they are comparable, and each outcome in A and B with the difference and whether it is beyond noise.

One self-contained page: inline CSS, tables, no scripts or external assets. Every text is escaped (labels are
paths or ids, settings come from specs). Small on purpose, to move onto a shared report kit later.
"""

from __future__ import annotations

import json
from html import escape

STYLE = ("body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1150px}table{border-collapse:collapse;"
         "margin:8px 0 20px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;vertical-align:top}"
         "th:first-child,td:first-child,td.text{text-align:left}h2{margin-top:28px;border-bottom:1px solid #ddd}"
         "tr.beyond td{background:#eaf4e4}code{font-size:12px;white-space:pre-wrap;word-break:break-word}"
         ".muted{color:#666;font-size:13px}footer{margin-top:32px;font-size:12px;color:#555}")
MAX_SETTING_CHARS = 400


def render_comparison_html(comparison: dict) -> str:
    kind = comparison["kind"]
    runs = comparison["runs"]
    title = f"twinsim: two {kind}s compared"
    sections = [f"<h1>{escape(title)}</h1>", _runs(runs), _comparability(comparison), _settings(comparison["config"])]
    if kind == "simulation":
        sections += [f"<h2>Outcomes</h2><p>{escape(_pairing_text(comparison['pairing']))}</p>",
                     _metrics_table(comparison["metrics"]), _counts(comparison)]
    else:
        sections.append("<h2>Outcomes by variant</h2>")
        if not comparison["variants"]:
            sections.append("<p>No variant is in both runs.</p>")
        for variant in comparison["variants"]:
            sections += [f"<h3>Variant {escape(variant['variant'])}</h3>",
                         f"<p>{escape(_pairing_text(variant['pairing']))}</p>", _metrics_table(variant["metrics"])]
    sections.append(_methods(comparison["settings"]))
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>{''.join(sections)}</body></html>")


def _table(header: list[str], rows: list[list], row_classes: list[str] | None = None) -> str:
    """Cells are escaped here, except those already marked up (tuples of one pre-escaped string)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        cls = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        cells = "".join(f"<td class=text>{c[0]}</td>" if isinstance(c, tuple) else f"<td>{escape(str(c))}</td>" for c in row)
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _p(value) -> str:
    return "n/a" if value is None else "<0.001" if value < 0.001 else f"{value:.3f}"


def _runs(runs: dict) -> str:
    keys = [k for k in runs["a"] if k != "label"]
    rows = [[k.replace("_", " "), _value(runs["a"].get(k)), _value(runs["b"].get(k))] for k in keys]
    return "<h2>Runs</h2>" + _table(["", f"run A: {runs['a']['label']}", f"run B: {runs['b']['label']}"], rows)


def _comparability(comparison: dict) -> str:
    facts = comparison["comparability"]
    notes = facts.get("notes") or []
    head = "<h2>Comparable?</h2>"
    if not facts.get("comparable"):
        head += "<p><strong>Not comparable.</strong></p>"
    if not notes:
        return head + "<p>Same personas and seed; only the settings below differ.</p>"
    return head + "<ul>" + "".join(f"<li>{escape(note)}</li>" for note in notes) + "</ul>"


def _settings(config: dict) -> str:
    differences = config["differences"]
    out = "<h2>What differs in the setup</h2>"
    if differences:
        out += _table(["setting", "run A", "run B"], [[d["setting"], (_code(d["a"]),), (_code(d["b"]),)] for d in differences])
    else:
        out += "<p>Nothing: both runs were set up the same way.</p>"
    if config["same"]:
        out += f"<p class=muted>The same in both: {escape(', '.join(config['same']))}.</p>"
    return out


def _code(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    if len(text) > MAX_SETTING_CHARS:
        text = text[:MAX_SETTING_CHARS] + f"... ({len(text)} characters)"
    return f"<code>{escape(text)}</code>"


def _metrics_table(metrics: list[dict]) -> str:
    if not metrics:
        return "<p>No outcome to compare.</p>"
    rows, classes = [], []
    for m in metrics:
        rows.append([m["label"], _share(m["a"]), _share(m["b"]), _difference(m), m["test"] or m.get("reason", "n/a"),
                     _p(m["p_value"]), _p(m["p_adjusted"]), "yes" if m["beyond_noise"] else "no"])
        classes.append("beyond" if m["beyond_noise"] else "")
    return _table(["outcome", "run A [95% CI]", "run B [95% CI]", "B - A [95% CI]", "test", "p", "p (Holm)", "beyond noise"],
                  rows, classes)


def _share(share: dict) -> str:
    if share["rate"] is None:
        return "n/a (0 judged)"
    return f"{_pct(share['rate'])} ({share['successes']}/{share['n']}) [{_pct(share['ci_low'])}, {_pct(share['ci_high'])}]"


def _difference(metric: dict) -> str:
    if metric["difference"] is None:
        return "n/a"
    low, high = metric["difference_ci_low"], metric["difference_ci_high"]
    return f"{100 * metric['difference']:+.1f} pp [{100 * low:+.1f}, {100 * high:+.1f}]"


def _pairing_text(pairing: dict) -> str:
    return f"{'Paired' if pairing['paired'] else 'Independent samples'}: {pairing['why']}. Test: {pairing['test']}."


def _counts(comparison: dict) -> str:
    titles = {"furthest": "furthest stage reached", "outcomes": "how runs ended", "exit_pages": "page at the end",
              "failures": "failures"}
    out = "<h2>Counts</h2>"
    for key, title in titles.items():
        counts = comparison["counts"].get(key) or {}
        if counts:
            out += f"<h3>{escape(title)}</h3>" + _table(["", "run A", "run B"], [[k, v["a"], v["b"]] for k, v in counts.items()])
    steps = comparison["mean_steps"]
    out += f"<p>Mean actions per twin: run A {steps['a']:.2f}, run B {steps['b']:.2f}.</p>"
    task = comparison.get("task") or {}
    for side in ("a", "b"):
        if task.get(side):
            t = task[side]
            out += (f"<p>Task in run {side.upper()}: <q>{escape(str(t['goal']))}</q>, reached by {t['reached']} of "
                    f"{t['judged']} judged twins.</p>")
    return out


def _methods(settings: dict) -> str:
    return (f"<footer>Shares of twins with {escape(settings['rate_interval'])} intervals; differences B - A with a "
            f"{escape(settings['difference_interval'])}. Tests: paired, {escape(settings['tests']['paired'])}; "
            f"otherwise {escape(settings['tests']['unpaired'])}. The {settings['n_tests']} p-value(s) are corrected "
            f"together ({escape(settings['correction'])}); beyond noise = corrected p below {settings['alpha']}."
            "</footer>")


def _value(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)
