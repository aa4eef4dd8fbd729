"""The experiment HTML report: renders a realistic run, escapes model and page text, names the personas behind the
flips and the quotes, puts the difference in points before odds ratios, collapses the p = 1 rows, draws every figure
in a real Chromium, and degrades gracefully when parts of the results are missing."""

from __future__ import annotations

import re

import pytest

from agent.experiments.flips import persona_flips
from agent.experiments.samples import Sample
from agent.experiments.statistics import analyse
from agent.experiments.step_paths import step_paths
from agent.experiments.themes import rationale_themes
from agent.reporting.experiment_report import render_report
from personas.persona import Persona
from personas.persona_card import persona_card
from tests.support.report_pages import (
    CHART_MARKS,
    launch_chromium,
    open_offline,
    page_text,
    plotly_figures,
)

HOSTILE = "<script>alert('twin')</script> too expensive"
CHARTS = {"outcome-rates", "action-types", "click-types", "flips-B", "paths-A", "paths-B"}


def _samples() -> list[Sample]:
    """40 twins x 2 variants; B (with a deal banner) sells clearly more, some twins say why in hostile markup."""
    samples = []
    for p in range(40):
        for variant in ("A", "B"):
            buys = p < (8 if variant == "A" else 26)
            leaves = not buys and p % 3 == 0
            action = "terminate" if leaves else "input" if p % 7 == 0 else "click"
            click_type = ("purchase" if buys else "review") if action == "click" else None
            rationale = (
                "Great price with the deal, adding it to my cart."
                if buys
                else HOSTILE
                if leaves and p % 2
                else "Delivery is too slow, I'll leave."
                if leaves
                else "I want to read the reviews first."
            )
            samples.append(
                Sample(
                    variant=variant,
                    persona_id=f"persona-{p}",
                    instance=0,
                    action_type=action,
                    click_type=click_type,
                    element=None
                    if action == "terminate"
                    else ("add_to_cart_button<b>" if click_type == "purchase" else "reviews.see_all"),
                    purchase=buys,
                    leave=leaves,
                    target_clicks={"deal_banner": variant == "B" and p < 15},
                    rationale=rationale,
                    segments={"conscientiousness": "high" if p % 2 else "low"},
                    steps=2,
                )
            )
    return samples


def _card(p: int) -> dict:
    return persona_card(
        Persona(
            id=f"persona-{p}",
            demographics={"gender": ["Female", "Male"][p % 2], "age": "25-34 years old", "employment": "Student"},
            self_description=f"I am shopper number {p}. I like deals.",
        )
    )


@pytest.fixture(scope="module")
def results() -> dict:
    from personas.embedder import get_embedder

    samples = _samples()
    return {
        "spec": {
            "name": "Deal banner <test>",
            "variants": [{"name": "A", "pages": []}, {"name": "B", "pages": []}],
            "brain": "embedded",
            "seed": 11,
            "samples_per_persona": 1,
            "targets": ["deal_banner"],
            "segments": ["conscientiousness"],
            "description": "Does a deal banner sell more?",
            "population_size": 40,
        },
        "status": {"state": "done"},
        "analysis": analyse(samples, ["A", "B"], targets=["deal_banner"], n_bootstrap=500, seed=11),
        "themes": rationale_themes(samples, get_embedder().embed),
        "cost": {"predictions": 80, "cost_usd": 0.0, "llm_calls": 0},
        "flips": persona_flips(samples, ["A", "B"]),
        "paths": step_paths(samples, ["A", "B"]),
        "personas": {f"persona-{p}": _card(p) for p in range(40)},
    }


def test_report_renders_every_section_and_escapes_model_text(results):
    html = render_report(results)
    text, tags, external = page_text(html)
    figures = plotly_figures(html)
    assert html.startswith("<!doctype html>")
    assert "<script>alert" not in html and "&lt;script&gt;alert(&#x27;twin&#x27;)&lt;/script&gt;" in html
    assert tags.count("script") == 2 + len(figures)  # plotly.js, one call per chart, the refit: nothing injected
    assert "add_to_cart_button&lt;b&gt;" in html and "Deal banner &lt;test&gt;" in html
    assert set(re.findall(r"data-chart='([^']+)'", html)) == CHARTS
    assert set(figures) == {f"chart-{c}" for c in CHARTS}
    assert external == []  # self-contained
    for heading in (
        "Experiment",
        "Outcomes per variant",
        "Comparisons with the control",
        "Which personas changed behaviour",
        "Segments",
        "Why twins acted: rationale themes",
        "Who the twins are",
        "Cost",
        "Methods",
    ):
        assert heading in text
    assert "A (control), B" in text and "population size (personas)" in text and "40" in text


def test_report_tables_carry_the_analysis_figures_difference_first(results):
    html = render_report(results)
    purchase = results["analysis"]["comparisons"][0]["outcomes"]["purchase"]
    assert purchase["significant"]  # 26 vs 8 of 40 twins, 18 discordant pairs
    row = re.search(r"<tr class='significant'><td>B vs A</td><td>purchase</td>.*?</tr>", html).group(0)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[2].startswith("+45.0 [")  # the difference in points comes right after the outcome
    assert cells[3:5] == ["20.0%", "65.0%"] and "McNemar exact" in row
    rates = results["analysis"]["variants"]["B"]["rates"]["purchase"]
    assert f"65.0% [{100 * rates['ci_low']:.1f}%, {100 * rates['ci_high']:.1f}%]" in html
    assert "holm" in html and "Cramér" in html
    assert "Great price with the deal, adding it to my cart." in html  # a theme label


def test_flips_name_the_personas_who_changed(results):
    flips = results["flips"]["comparisons"][0]
    # personas 8..25 bought on B only; nobody bought on A only
    assert flips["totals"]["purchase"] == {"gained": 18, "lost": 0}
    assert {row["persona_id"] for row in flips["listed"] if row["purchase"]["gained"]} == {
        f"persona-{p}" for p in range(8, 26)
    }
    html = render_report(results)
    chart = plotly_figures(html)["chart-flips-B"]
    assert [trace["name"] for trace in chart["data"]] == ["purchase", "leave"]
    assert all(len(trace["x"]) == flips["personas_changed"] for trace in chart["data"])
    # personas appear by a short label linking to their card, never as a bare id
    assert (
        "<a class='persona' href='#persona-persona-8' title='persona-8'>Female, 25-34, Student · persona-8</a>" in html
    )
    assert "id='persona-persona-8'" in html


def test_quotes_say_who_said_them(results):
    html = render_report(results)
    on_a, on_b = re.findall(
        r"<blockquote>Great price with the deal, adding it to my cart\.<span class='who'>(.*?)"
        r"</span></blockquote>",
        html,
    )
    assert on_a.endswith("; said 8 times") and on_b.endswith("; said 26 times")  # per variant, three named
    assert re.findall(r"title='(persona-\d+)'", on_a) == ["persona-0", "persona-1", "persona-2"]


def test_indistinguishable_variants_are_said_first_and_p1_rows_collapsed():
    same = [s.model_copy(update={"variant": v}) for s in _samples() if s.variant == "A" for v in ("A", "B")]
    results = {
        "spec": {"name": "restyle"},
        "analysis": analyse(same, ["A", "B"], n_bootstrap=200, seed=1),
        "visibility": {
            "distinguishable": False,
            "brain": "embedded",
            "indistinguishable_variants": ["B"],
            "note": "variant(s) B give the embedded brain exactly the same input as A on every page",
        },
    }
    html = render_report(results)
    text, _, _ = page_text(html)
    assert text.index("The twins could not see the difference") < text.index("Outcomes per variant")
    # purchase and leave overall, and in each of the two conscientiousness buckets: all p = 1, all collapsed
    assert "2 of 2 tests gave p = 1.000" in text and "4 of 4 tests gave p = 1.000" in text
    assert text.count("As expected: the twins could not see the difference.") == 2
    assert "<details><summary>The 2 tests with p = 1.000</summary>" in html
    assert "<details><summary>The 4 tests with p = 1.000</summary>" in html


def _purchase_row(paired: bool) -> list[str]:
    """1 of 200 twins buys on A, 9 of 200 on B; paired (the same twins) or not (other twins on B)."""
    samples = []
    for p in range(200):
        for variant, buyers in (("A", 1), ("B", 9)):
            buys = p < buyers
            samples.append(
                Sample(
                    variant=variant,
                    persona_id=f"p{p}" if paired or variant == "A" else f"q{p}",
                    instance=0,
                    action_type="click",
                    click_type="purchase" if buys else "review",
                    element="x",
                    purchase=buys,
                    leave=False,
                )
            )
    html = render_report({"analysis": analyse(samples, ["A", "B"], n_bootstrap=200, seed=1)})
    row = re.search(r"<tr[^>]*><td>B vs A</td><td>purchase</td>.*?</tr>", html).group(0)
    return re.findall(r"<td[^>]*>(.*?)</td>", row)


def test_odds_ratios_come_with_what_they_are_made_of():
    paired, unpaired = _purchase_row(True), _purchase_row(False)
    assert paired[2].startswith("+4.0 [") and unpaired[2].startswith("+4.0 [")  # the difference in points first
    assert paired[-1] == "17.00 (flips 8 : 0)"  # (8 + 0.5) / (0 + 0.5): eight twins bought on B only
    assert re.fullmatch(r"9\.\d\d \(rare: 0\.5% → 4\.5%\)", unpaired[-1]), unpaired


@pytest.mark.integration
def test_report_figures_are_drawn_in_chromium_offline(results, tmp_path):
    from playwright.sync_api import sync_playwright

    path = tmp_path / "report.html"
    path.write_text(render_report(results))
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            tab, refused, errors = open_offline(browser, path, 1280)
            marks = tab.evaluate(CHART_MARKS)
            assert set(marks) == CHARTS and refused == [] and errors == []
            assert marks["outcome-rates"]["bars"] == marks["outcome-rates"]["errorBars"] == 3 * 2  # outcomes x variants
            assert marks["flips-B"]["bars"] == 2 * results["flips"]["comparisons"][0]["personas_changed"]
            for variant, rows in results["paths"].items():  # step 1 -> step 2, and step 2 -> each way runs ended
                assert marks[f"paths-{variant}"]["sankeyLinks"] == 1 + len({row["ended"] for row in rows})
            for chart in marks.values():
                assert chart["plotWidth"] == chart["width"] and chart["width"] > 400
        finally:
            browser.close()


@pytest.mark.parametrize(
    "partial", [{}, {"spec": {"name": "x"}}, {"status": "running"}, {"analysis": {}, "themes": {}, "cost": {}}]
)
def test_missing_parts_still_render(partial):
    html = render_report(partial)
    assert html.startswith("<!doctype html>") and html.endswith("</html>")
    assert "No analysis yet" in html


def test_rendering_is_deterministic(results):
    assert render_report(results) == render_report(results)
