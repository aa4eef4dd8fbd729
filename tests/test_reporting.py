"""The eval HTML report: valid, complete, escaped, robust to missing figures, deterministic."""

from __future__ import annotations

from agent.actions import ClickAction, TerminateAction
from agent.evaluation.metrics import StepRecord, compute_metrics
from agent.evaluation.published import PUBLISHED_RESULTS
from agent.reporting.eval_report import render_eval_report
from tests.support.report_pages import page_text, plotly_figures


def _report() -> dict:
    hostile = "<script>alert(1)</script>"
    records = [
        StepRecord("s1", 0, False, ClickAction(name="a"), "review", ClickAction(name="a"), "review"),
        StepRecord("s1", 1, False, ClickAction(name="b"), hostile, ClickAction(name="c"), "search"),
        StepRecord("s1", 2, True, TerminateAction(), None, ClickAction(name="d"), "purchase"),
    ]
    return {
        "metrics": compute_metrics(records),
        "run": {
            "brain": "embedded",
            "task": "page-free",
            "latency": {"p50_ms": 1.0, "p95_ms": 2.0},
            "usage": {"calls": 0, "total_tokens": 0, "cost_usd": 0.0},
        },
        "published": PUBLISHED_RESULTS,
    }


def test_report_has_tables_charts_and_escapes_labels():
    report = _report()
    html = render_eval_report(report)
    text, tags, external = page_text(html)
    figures = plotly_figures(html)
    confusion = report["metrics"]["confusion"]
    # one heatmap per confusion matrix, carrying its counts; two distributions
    assert set(figures) == {f"chart-confusion-{name}" for name in confusion} | {
        "chart-distribution-action-type",
        "chart-distribution-click-type",
    }
    for name, matrix in confusion.items():
        heatmap = figures[f"chart-confusion-{name}"]["data"][0]
        assert heatmap["type"] == "heatmap" and heatmap["text"] == [[str(c) for c in row] for row in matrix["matrix"]]
    # the hostile click type is text everywhere: in the tables and in the chart labels plotly reads tags from
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert tags.count("script") == 2 + len(figures)  # plotly.js, one call per chart, the refit: nothing injected
    labels = figures["chart-confusion-click_type"]["data"][0]["x"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in labels
    assert "GPT-4.1" in text and "arXiv 2506.05606" in text and "Methods" in text
    assert external == []  # nothing to fetch: the page is one file


def test_missing_and_none_figures_render_as_na():
    html = render_eval_report({"metrics": {"exact_match": None}, "run": {}})
    assert "n/a" in html and html.startswith("<!doctype html>")
    assert render_eval_report({}).startswith("<!doctype html>")


def test_rendering_is_deterministic():
    assert render_eval_report(_report()) == render_eval_report(_report())
