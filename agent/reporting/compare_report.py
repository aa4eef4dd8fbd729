"""The HTML page of a comparison of two runs (agent/comparison/run_comparison.py): what differed in their setup,
whether they are comparable, and each outcome in A and B with the difference and whether it is beyond noise.

Built with the report kit (one stylesheet, tables that scroll in their own box, every text escaped); it has no
charts, so it carries no chart library and stays small.
"""

from __future__ import annotations

import json

from agent.reporting.kit import Html, join, methods, notice, page, paragraph, pct, section, table

MAX_SETTING_CHARS = 400


def render_comparison_html(comparison: dict) -> str:
    kind = comparison["kind"]
    title = f"twinsim: two {kind}s compared"
    body: list[object] = [
        Html("<h1>"),
        title,
        Html("</h1>"),
        _runs(comparison["runs"]),
        _comparability(comparison),
        _settings(comparison["config"]),
    ]
    if kind == "simulation":
        body.append(
            section("Outcomes", paragraph(_pairing_text(comparison["pairing"])), _metrics_table(comparison["metrics"]))
        )
        body.append(_counts(comparison))
    else:
        variants = [
            section(
                f"Variant {v['variant']}", paragraph(_pairing_text(v["pairing"])), _metrics_table(v["metrics"]), level=3
            )
            for v in comparison["variants"]
        ]
        body.append(section("Outcomes by variant", *(variants or [paragraph("No variant is in both runs.")])))
    body.append(_methods(comparison["settings"]))
    return page(title, body, charts=False)


def _p(value: float | None) -> str:
    return "n/a" if value is None else "<0.001" if value < 0.001 else f"{value:.3f}"


def _runs(runs: dict) -> Html:
    keys = [k for k in runs["a"] if k != "label"]
    rows = [[k.replace("_", " "), _value(runs["a"].get(k)), _value(runs["b"].get(k))] for k in keys]
    return section("Runs", table(["", f"run A: {runs['a']['label']}", f"run B: {runs['b']['label']}"], rows))


def _comparability(comparison: dict) -> Html:
    facts = comparison["comparability"]
    notes = facts.get("notes") or []
    parts: list[object] = []
    if not facts.get("comparable"):
        parts.append(notice("Not comparable.", kind="warning"))
    if not notes:
        parts.append(paragraph("Same personas and seed; only the settings below differ."))
    else:
        parts.append(Html("<ul>" + join(Html("<li>" + join([note]) + "</li>") for note in notes) + "</ul>"))
    return section("Comparable?", *parts)


def _settings(config: dict) -> Html:
    differences = config["differences"]
    parts: list[object] = [
        table(["setting", "run A", "run B"], [[d["setting"], _code(d["a"]), _code(d["b"])] for d in differences])
        if differences
        else paragraph("Nothing: both runs were set up the same way.")
    ]
    if config["same"]:
        parts.append(paragraph(f"The same in both: {', '.join(config['same'])}.", muted=True))
    return section("What differs in the setup", *parts)


def _code(value: object) -> Html:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    if len(text) > MAX_SETTING_CHARS:
        text = text[:MAX_SETTING_CHARS] + f"... ({len(text)} characters)"
    return Html("<code>" + join([text]) + "</code>")


def _metrics_table(metrics: list[dict]) -> Html:
    if not metrics:
        return paragraph("No outcome to compare.")
    rows = [
        [
            m["label"],
            _share(m["a"]),
            _share(m["b"]),
            _difference(m),
            m["test"] or m.get("reason", "n/a"),
            _p(m["p_value"]),
            _p(m["p_adjusted"]),
            "yes" if m["beyond_noise"] else "no",
        ]
        for m in metrics
    ]
    return table(
        ["outcome", "run A [95% CI]", "run B [95% CI]", "B - A [95% CI]", "test", "p", "p (Holm)", "beyond noise"],
        rows,
        numeric=(5, 6),
        row_classes=["significant" if m["beyond_noise"] else "" for m in metrics],
    )


def _share(share: dict) -> str:
    if share["rate"] is None:
        return "n/a (0 judged)"
    return f"{pct(share['rate'])} ({share['successes']}/{share['n']}) [{pct(share['ci_low'])}, {pct(share['ci_high'])}]"


def _difference(metric: dict) -> str:
    if metric["difference"] is None:
        return "n/a"
    low, high = metric["difference_ci_low"], metric["difference_ci_high"]
    return f"{100 * metric['difference']:+.1f} pp [{100 * low:+.1f}, {100 * high:+.1f}]"


def _pairing_text(pairing: dict) -> str:
    return f"{'Paired' if pairing['paired'] else 'Independent samples'}: {pairing['why']}. Test: {pairing['test']}."


def _counts(comparison: dict) -> Html:
    titles = {
        "furthest": "furthest stage reached",
        "outcomes": "how runs ended",
        "exit_pages": "page at the end",
        "failures": "failures",
    }
    parts: list[object] = []
    for key, title in titles.items():
        counts = comparison["counts"].get(key) or {}
        if counts:
            parts.append(
                section(
                    title,
                    table(["", "run A", "run B"], [[k, v["a"], v["b"]] for k, v in counts.items()], numeric=(1, 2)),
                    level=3,
                )
            )
    steps = comparison["mean_steps"]
    parts.append(paragraph(f"Mean actions per twin: run A {steps['a']:.2f}, run B {steps['b']:.2f}."))
    task = comparison.get("task") or {}
    for side in ("a", "b"):
        if task.get(side):
            t = task[side]
            parts.append(
                paragraph(
                    f"Task in run {side.upper()}: \u201c{t['goal']}\u201d, reached by {t['reached']} of "
                    f"{t['judged']} judged twins."
                )
            )
    return section("Counts", *parts)


def _methods(settings: dict) -> Html:
    return methods(
        f"Shares of twins with {settings['rate_interval']} intervals; differences B - A with a "
        f"{settings['difference_interval']}. Tests: paired, {settings['tests']['paired']}; otherwise "
        f"{settings['tests']['unpaired']}. The {settings['n_tests']} p-value(s) are corrected together "
        f"({settings['correction']}); beyond noise = corrected p below {settings['alpha']}."
    )


def _value(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)
