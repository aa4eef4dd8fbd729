"""Every report, rendered from a real run, read in headless Chromium at a desktop (1280 px) and a phone (390 px)
width with the network cut off: nothing sticks out of the viewport but inside a box that scrolls sideways and fits,
the page itself never hides overflow, each chart draws one mark per datum (funnel stages, path transitions, bars,
confusion cells), the charts draw from the inline plotly.js with no request beyond file://, and model or page text
stays text. The full-page screenshots are kept next to each report (<out>/screenshots/report-<width>.png)."""

from __future__ import annotations

import asyncio
import json
import re
from html import escape
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.reporting.experiment_report import render_report
from agent.reporting.simulation_report import render_simulation_html
from agent.simulation import SimulationConfig, run_simulation
from agent.simulation.funnel import STAGES
from agent.simulation.output import inline_screenshots
from tests.conftest import PAGES, REPO
from tests.support.report_pages import (
    CHART_MARKS,
    LAYOUT_PROBLEMS,
    launch_chromium,
    open_offline,
    plotly_figures,
)
from tests.support.sample_twins import EXAMPLE, OPERA_USER, services_with_sample_twins

pytestmark = pytest.mark.integration

WIDTHS = (1280, 390)
HOSTILE = "<script>alert('twin')</script><img src=x onerror=alert(2)> too dear"
ENDED = {
    "left": "left",
    "purchased": "bought",
    "task_reached": "task reached",
    "max_steps": "step limit",
    "error": "error",
}
MARKS_ON_SHOTS = """
() => [...document.querySelectorAll('.shot-frame')].map(frame => {
  const img = frame.querySelector('img').getBoundingClientRect();
  const mark = frame.querySelector('.mark');
  const box = mark && mark.getBoundingClientRect();
  return {src: frame.querySelector('img').getAttribute('src'), loaded: frame.querySelector('img').naturalWidth,
          img: [img.left, img.top, img.width, img.height],
          mark: box && [box.left, box.top, box.width, box.height], data: mark && mark.dataset.box};
})
"""


def read_in_chromium(path: Path, out: Path) -> dict[int, dict]:
    """Per width: layout problems, chart marks, marks on screenshots, what was refused and any script error; the
    full-page screenshot is written to out/screenshots/report-<width>.png."""
    from playwright.sync_api import sync_playwright

    (out / "screenshots").mkdir(parents=True, exist_ok=True)
    seen = {}
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            for width in WIDTHS:
                tab, refused, errors = open_offline(browser, path, width)
                dialogs: list[str] = []
                tab.on(
                    "dialog",
                    lambda dialog, seen_dialogs=dialogs: (seen_dialogs.append(dialog.message), dialog.dismiss()),
                )
                seen[width] = {
                    "layout": tab.evaluate(LAYOUT_PROBLEMS),
                    "charts": tab.evaluate(CHART_MARKS),
                    "shots": tab.evaluate(MARKS_ON_SHOTS),
                    "refused": refused,
                    "errors": errors,
                    "dialogs": dialogs,
                    "text": tab.inner_text("body"),
                    "steps_visible": tab.locator(".step").evaluate_all(
                        "steps => steps.filter(s => s.checkVisibility()).length"
                    ),
                    "scripts": tab.locator("script").count(),
                    "broken_links": tab.evaluate(
                        "() => [...document.querySelectorAll('a[href^=\"#\"]')].map(a => a.getAttribute('href'))"
                        ".filter(h => !document.getElementById(decodeURIComponent(h.slice(1))))"
                    ),
                }
                tab.screenshot(path=str(out / "screenshots" / f"report-{width}.png"), full_page=True)
                tab.close()
        finally:
            browser.close()
    return seen


def assert_fits_and_offline(seen: dict[int, dict], figures: dict) -> None:
    for width, page in seen.items():
        assert page["layout"]["problems"] == [], (width, page["layout"])
        assert page["layout"]["scrollWidth"] == width
        assert page["refused"] == [] and page["errors"] == [] and page["dialogs"] == []
        assert set(page["charts"]) == {chart_id.removeprefix("chart-") for chart_id in figures}
        for chart_id, chart in page["charts"].items():  # each plot fits its own box (or its sideways-scrolling one)
            assert chart["plotWidth"] >= chart["width"] - 1, (width, chart_id, chart)
            assert chart["width"] <= width


# -- the live simulation ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def simulation(tmp_path_factory, opera_dir, shop_url):
    """Two twins, four steps, with screenshots, on the demo shop; one rationale replaced by hostile markup, as a
    model could write it."""
    services = services_with_sample_twins(tmp_path_factory.mktemp("twins"), opera_dir)
    out = tmp_path_factory.mktemp("simulation")
    config = SimulationConfig(
        url=shop_url + "/", persona_ids=[OPERA_USER, EXAMPLE], max_steps=4, seed=0, screenshots=True
    )
    personas = [services.store.get_persona(pid) for pid in config.persona_ids]
    result = asyncio.run(run_simulation(config, personas, services.graph, out_dir=out)).model_dump(mode="json")
    result["traces"][0]["steps"][0]["rationale"] = HOSTILE
    # The report alone in a folder of its own: its screenshots must travel inside it (data: URIs), not beside it.
    alone = out / "report_alone"
    alone.mkdir()
    (alone / "report.html").write_text(render_simulation_html(result, inline_screenshots(result, out)))
    return out, result


def transitions(trace: dict) -> list[tuple]:
    pages = [s["page_type"] for s in trace["steps"]]
    if trace["outcome"] in ("purchased", "max_steps", "task_reached") and trace["final_page_type"]:
        pages.append(trace["final_page_type"])
    nodes = [(i, page) for i, page in enumerate(pages)] + [("end", ENDED[trace["outcome"]])]
    return list(pairwise(nodes))


def test_simulation_report_fits_marks_steps_and_names_twins(simulation):
    out, result = simulation
    html = (out / "report_alone" / "report.html").read_text()
    figures = plotly_figures(html)
    seen = read_in_chromium(out / "report_alone" / "report.html", out)
    assert_fits_and_offline(seen, figures)
    steps = [s for t in result["traces"] for s in t["steps"]]
    boxed = [s for s in steps if s["target_box"]]
    assert boxed and all(s["screenshot"] and s["screenshot_size"] == {"width": 1280, "height": 900} for s in steps)
    links = {link for trace in result["traces"] for link in transitions(trace)}
    for width, page in seen.items():
        charts = page["charts"]
        assert charts["funnel"]["bars"] == charts["funnel"]["errorBars"] == len(STAGES)
        assert charts["paths"]["sankeyLinks"] == len(links)
        assert charts["paths"]["sankeyNodes"] == len({node for link in links for node in link})
        # every step shown, none collapsed; every screenshot loaded, large enough to read, its mark over the element
        assert page["steps_visible"] == len(steps)
        assert len(page["shots"]) == len(steps) and all(shot["loaded"] == 1280 for shot in page["shots"])
        assert all(shot["src"].startswith("data:image/png;base64,") for shot in page["shots"])  # one file
        for step, shot in zip(steps, page["shots"], strict=True):
            left, top, w, h = shot["img"]
            assert w >= (600 if width == 1280 else 300), (width, shot)
            if not step["target_box"]:
                assert shot["mark"] is None and step["action"]["type"] == "terminate"
                continue
            box, size = step["target_box"], step["screenshot_size"]
            mark_left, mark_top, mark_w, mark_h = shot["mark"]
            assert mark_left == pytest.approx(left + w * max(0, box["x"]) / size["width"], abs=1.5)
            assert mark_top == pytest.approx(top + h * max(0, box["y"]) / size["height"], abs=1.5)
            assert 0 < mark_w <= w and 0 < mark_h <= h
        # twins by who they are, linking to their cards; the hostile rationale is text
        assert (
            "Female, 25-34, Student · 7f0c8207" in page["text"]
            and "Sam, Male, 18-24, Student · sam-chen" in page["text"]
        )
        assert page["broken_links"] == []
        assert HOSTILE in page["text"]
        assert page["scripts"] == 2 + len(figures)  # plotly.js, one per chart, the refit: the rationale added none
    for heading in (
        "Funnel",
        "Paths",
        "Where twins left, and why",
        "Who the twins are",
        "Every twin's steps",
        "Methods",
    ):
        assert f">{escape(heading)}</h2>" in html
    assert (out / "screenshots" / "report-1280.png").stat().st_size > 50_000
    assert render_simulation_html(result, inline_screenshots(result, out)) == html  # deterministic


# -- an A/B experiment --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def experiment(tmp_path_factory, opera_dir):
    """The embedded brain on two-page sequences (search results, then a product page with or without a deal
    banner), real OPeRA personas, rationale themes from the real embedder; one quote replaced by hostile markup."""
    from agent.brains.embedded import EmbeddedBrain
    from agent.experiments.prepared import prepare
    from agent.experiments.results import experiment_results
    from agent.experiments.runner import run_experiment
    from agent.experiments.spec import ExperimentSpec
    from personas.embedder import get_embedder
    from personas.sources import load_personas

    results_page = {"path": str(PAGES / "search_results.html"), "page_url": "https://www.amazon.com/s?k=usb+c+cable"}
    spec = ExperimentSpec.model_validate(
        {
            "name": "deal banner <b>after search</b>",
            "seed": 7,
            "samples_per_persona": 3,
            "population": {"sample": 16, "seed": 2},
            "segments": ["prime"],
            "targets": ["deal_banner"],
            "variants": [
                {"name": "A", "pages": [results_page, {"path": str(PAGES / "product_page.html")}]},
                {
                    "name": "B",
                    "pages": [
                        results_page,
                        {"path": str(REPO / "examples" / "experiments" / "pages" / "product_deal_banner.html")},
                    ],
                },
            ],
        }
    )
    prepared = prepare(spec, load_personas(opera_dir / "personas.jsonl"), memory=None)
    results = experiment_results(
        prepared, run_experiment(prepared, embedded=EmbeddedBrain()), embed=get_embedder().embed
    )
    group = next(g for g in results["themes"]["variants"]["A"].values() if g["themes"])
    group["themes"][0]["quotes"][0]["text"] = HOSTILE
    out = tmp_path_factory.mktemp("experiment")
    (out / "results.json").write_text(json.dumps(results))
    (out / "report.html").write_text(render_report(results))
    return out, results


def test_experiment_report_fits_and_draws_outcomes_flips_and_paths(experiment):
    out, results = experiment
    html = (out / "report.html").read_text()
    figures = plotly_figures(html)
    seen = read_in_chromium(out / "report.html", out)
    assert_fits_and_offline(seen, figures)
    variants = results["analysis"]["variants"]
    outcomes = next(iter(variants.values()))["rates"]
    flips = results["flips"]["comparisons"][0]
    assert flips["personas_changed"] > 0  # the banner changes what some twins do
    assert any(row["steps"] == 2 for rows in results["paths"].values() for row in rows)  # some went on to page 2
    for page in seen.values():
        charts = page["charts"]
        assert charts["outcome-rates"]["bars"] == charts["outcome-rates"]["errorBars"] == len(variants) * len(outcomes)
        assert charts["flips-B"]["bars"] == 2 * min(30, len(flips["listed"]))
        for variant, rows in results["paths"].items():
            links = {(f"step {k}", f"step {k + 1}") for row in rows for k in range(1, row["steps"])}
            links |= {(f"step {row['steps']}", row["ended"]) for row in rows}
            assert charts[f"paths-{variant}"]["sankeyLinks"] == len(links), (variant, rows)
            assert charts[f"paths-{variant}"]["sankeyNodes"] == len({node for link in links for node in link})
        assert page["broken_links"] == []  # every persona label links to a card on the page
        assert HOSTILE in page["text"] and "deal banner <b>after search</b>" in page["text"]
        text = page["text"]
        assert text.index("What the twins could see") < text.index("Comparisons with the control")
    named = set(re.findall(r"href='#persona-([^']+)'", html))
    assert named and named <= set(results["personas"])
    assert render_report(results) == html


# -- the evaluation on recorded sessions --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory):
    from service.cli.main import app

    out = tmp_path_factory.mktemp("eval")
    small = Path(__file__).resolve().parent / "fixtures" / "opera_small"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--actions",
            str(small / "actions.parquet"),
            "--users",
            str(small / "personas.jsonl"),
            "--brain",
            "embedded",
            "--out",
            str(out / "report.json"),
            "--html",
            str(out / "report.html"),
        ],
        env={"TWINSIM_DATA_DIR": str(out / "data"), "HF_HUB_OFFLINE": "1"},
    )
    assert result.exit_code == 0, result.output
    return out, json.loads((out / "report.json").read_text())


def test_eval_report_fits_and_fills_every_confusion_cell(evaluation):
    out, report = evaluation
    html = (out / "report.html").read_text()
    figures = plotly_figures(html)
    seen = read_in_chromium(out / "report.html", out)
    assert_fits_and_offline(seen, figures)
    confusion = report["metrics"]["confusion"]
    distributions = report["metrics"]["distributions"]
    for page in seen.values():
        for name, matrix in confusion.items():
            assert page["charts"][f"confusion-{name}"]["cellTexts"] == len(matrix["labels"]) ** 2
        for name in ("action_type", "click_type"):
            labels = set(distributions[name]["gold"]) | set(distributions[name]["predicted"])
            assert page["charts"][f"distribution-{name.replace('_', '-')}"]["bars"] == 2 * len(labels)
        assert "Methods" in page["text"] and "arXiv 2506.05606" in page["text"]
