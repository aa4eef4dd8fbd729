"""The eval HTML report: valid, complete, escaped, robust to missing figures, deterministic."""

from __future__ import annotations

from html.parser import HTMLParser

from agent.actions import ClickAction, TerminateAction
from agent.evaluation.metrics import StepRecord, compute_metrics
from agent.evaluation.published import PUBLISHED_RESULTS
from agent.reporting.eval_report import render_eval_report


class _Counter(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.cell_texts: list[str] = []
        self._in_cell_text = False

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1


def _report() -> dict:
    hostile = "<script>alert(1)</script>"
    records = [
        StepRecord("s1", 0, False, ClickAction(name="a"), "review", ClickAction(name="a"), "review"),
        StepRecord("s1", 1, False, ClickAction(name="b"), hostile, ClickAction(name="c"), "search"),
        StepRecord("s1", 2, True, TerminateAction(), None, ClickAction(name="d"), "purchase"),
    ]
    return {"metrics": compute_metrics(records),
            "run": {"brain": "embedded", "task": "page-free", "latency": {"p50_ms": 1.0, "p95_ms": 2.0},
                    "usage": {"calls": 0, "total_tokens": 0, "cost_usd": 0.0}},
            "published": PUBLISHED_RESULTS}


def test_report_has_tables_charts_and_escapes_labels():
    html = render_eval_report(_report())
    counter = _Counter()
    counter.feed(html)
    assert counter.tags["svg"] >= 4  # three confusion matrices and two distributions
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "GPT-4.1" in html and "arXiv 2506.05606" in html
    matrix = _report()["metrics"]["confusion"]["action_type"]["matrix"]
    heatmap_cells = html.split("action type confusion", 1)[1].split("</svg>", 1)[0].count('class="cell"')
    assert heatmap_cells == len(matrix) ** 2


def test_missing_and_none_figures_render_as_na():
    html = render_eval_report({"metrics": {"exact_match": None}, "run": {}})
    assert "n/a" in html and html.startswith("<!doctype html>")
    assert render_eval_report({}).startswith("<!doctype html>")


def test_rendering_is_deterministic():
    assert render_eval_report(_report()) == render_eval_report(_report())
