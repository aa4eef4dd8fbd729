"""The experiment HTML report: renders a realistic run, escapes model and page text, finds every figure in a real
Chromium, and degrades gracefully when parts of the results are missing."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from agent.experiments.report import render_report
from agent.experiments.samples import Sample
from agent.experiments.statistics import analyse
from agent.experiments.themes import rationale_themes

HOSTILE = "<script>alert('twin')</script> too expensive"
CHARTS = {"outcome-rates", "action-types", "click-types"}


class _Page(HTMLParser):
    """Collects tags, figure data-chart ids, external references and the visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.charts: list[str] = []
        self.external: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "figure" and "data-chart" in attrs:
            self.charts.append(attrs["data-chart"])
        self.external += [v for k, v in attrs.items() if k in ("src", "href") and v]

    def handle_data(self, data):
        self.text.append(data)


def _samples() -> list[Sample]:
    """40 twins x 2 variants; B (with a deal banner) sells clearly more, some twins say why in hostile markup."""
    samples = []
    for p in range(40):
        for variant in ("A", "B"):
            buys = p < (8 if variant == "A" else 26)
            leaves = not buys and p % 3 == 0
            action = "terminate" if leaves else "input" if p % 7 == 0 else "click"
            click_type = ("purchase" if buys else "review") if action == "click" else None
            rationale = ("Great price with the deal, adding it to my cart." if buys else
                         HOSTILE if leaves and p % 2 else "Delivery is too slow, I'll leave." if leaves else
                         "I want to read the reviews first.")
            samples.append(Sample(variant=variant, persona_id=f"persona-{p}", instance=0, action_type=action,
                                  click_type=click_type, element=None if action == "terminate" else
                                  ("add_to_cart_button<b>" if click_type == "purchase" else "reviews.see_all"),
                                  purchase=buys, leave=leaves, target_clicks={"deal_banner": variant == "B" and p < 15},
                                  rationale=rationale, segments={"conscientiousness": "high" if p % 2 else "low"}, steps=2))
    return samples


@pytest.fixture(scope="module")
def results() -> dict:
    from personas.embedder import get_embedder

    samples = _samples()
    return {"spec": {"name": "Deal banner <test>", "variants": [{"name": "A", "pages": []}, {"name": "B", "pages": []}],
                     "brain": "embedded", "seed": 11, "samples_per_persona": 1, "targets": ["deal_banner"],
                     "segments": ["conscientiousness"], "description": "Does a deal banner sell more?"},
            "status": {"state": "done"},
            "analysis": analyse(samples, ["A", "B"], targets=["deal_banner"], n_bootstrap=500, seed=11),
            "themes": rationale_themes(samples, get_embedder().embed),
            "cost": {"predictions": 80, "cost_usd": 0.0, "llm_calls": 0}}


def test_report_renders_every_section_and_escapes_model_text(results):
    html = render_report(results)
    page = _Page()
    page.feed(html)
    assert html.startswith("<!doctype html>") and "script" not in page.tags
    assert "<script>" not in html and "&lt;script&gt;alert(&#x27;twin&#x27;)&lt;/script&gt;" in html
    assert "add_to_cart_button&lt;b&gt;" in html and "Deal banner &lt;test&gt;" in html
    assert set(page.charts) == CHARTS and page.tags.count("svg") == 3
    assert page.external == []  # self-contained
    text = " ".join(page.text)
    for heading in ("Experiment", "Outcomes per variant", "Comparisons with the control", "Segments",
                    "Why twins acted: rationale themes", "Cost", "Methods"):
        assert heading in text
    assert "A (control), B" in text and "population size (personas)" in text and "40" in text


def test_report_tables_carry_the_analysis_figures(results):
    html = render_report(results)
    purchase = results["analysis"]["comparisons"][0]["outcomes"]["purchase"]
    assert purchase["significant"]  # 26 vs 8 of 40 twins, 18 discordant pairs
    row = re.search(r'<tr class="significant"><td>B vs A</td><td class=text>purchase</td>.*?</tr>', html).group(0)
    assert "McNemar exact" in row and "20.0%" in row and "65.0%" in row and "+45.0 pp" in row
    rates = results["analysis"]["variants"]["B"]["rates"]["purchase"]
    assert f"65.0% [{100 * rates['ci_low']:.1f}%, {100 * rates['ci_high']:.1f}%]" in html
    assert "holm" in html and "Cramér" in html
    assert "Great price with the deal, adding it to my cart." in html  # a theme label


@pytest.mark.integration
def test_report_figures_are_drawn_in_chromium(results, tmp_path):
    from playwright.sync_api import sync_playwright

    path = tmp_path / "report.html"
    path.write_text(render_report(results))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"], headless=True)
        try:
            tab = browser.new_page()
            tab.goto(path.as_uri())
            figures = tab.locator("figure[data-chart]")
            assert {figures.nth(i).get_attribute("data-chart") for i in range(figures.count())} == CHARTS
            for chart in CHARTS:
                box = tab.locator(f'figure[data-chart="{chart}"] svg').bounding_box()
                assert box and box["width"] > 200 and box["height"] > 100
            assert tab.locator('figure[data-chart="outcome-rates"] .error-bar').count() == 3 * 2  # 3 outcomes x 2 variants
            assert tab.evaluate("() => document.querySelectorAll('script').length") == 0
        finally:
            browser.close()


@pytest.mark.parametrize("partial", [{}, {"spec": {"name": "x"}}, {"status": "running"},
                                      {"analysis": {}, "themes": {}, "cost": {}}])
def test_missing_parts_still_render(partial):
    html = render_report(partial)
    assert html.startswith("<!doctype html>") and html.endswith("</html>")
    assert "No analysis yet" in html


def test_rendering_is_deterministic(results):
    assert render_report(results) == render_report(results)
