"""Reading a rendered report the way a test needs to: the plotly figures it hands to the browser (data and layout,
parsed from the page), its visible text, and, in a real Chromium, whether it fits the viewport, which chart marks
were drawn, and whether it asked the network for anything."""

from __future__ import annotations

import contextlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

_NEW_PLOT = re.compile(r'Plotly\.newPlot\(\s*"([^"]+)",\s*')


def plotly_figures(html: str) -> dict[str, dict]:
    """{div id: {"data": [...], "layout": {...}}} for every chart in the page, as plotly will draw it."""
    decoder = json.JSONDecoder()
    figures = {}
    for match in _NEW_PLOT.finditer(html):
        data, end = decoder.raw_decode(html, match.end())
        rest = html[end:].lstrip()
        assert rest.startswith(","), rest[:40]
        layout, _ = decoder.raw_decode(rest[1:].lstrip())
        figures[match.group(1)] = {"data": data, "layout": layout}
    return figures


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.tags: list[str] = []
        self.external: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._skip += tag in ("script", "style")
        self.external += [v for k, v in attrs if k in ("src", "href") and v and re.match(r"[a-z]+:", v)]

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page_text(html: str) -> tuple[str, list[str], list[str]]:
    """(visible text, start tags in order, absolute src/href addresses)."""
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split()), parser.tags, parser.external


# Every element must lie inside the viewport horizontally, unless an ancestor scrolls sideways (overflow-x auto or
# scroll) and that scroll box itself fits. plotly's text-measuring node (#js-plotly-tester) is parked at -10000 px
# on purpose and is never drawn.
LAYOUT_PROBLEMS = """
() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  for (const el of [document.documentElement, document.body]) {
    const style = getComputedStyle(el);
    for (const axis of ['overflowX', 'overflowY'])
      if (['hidden', 'clip'].includes(style[axis])) problems.push(`${el.tagName} ${axis} ${style[axis]}`);
  }
  const scrolls = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('#js-plotly-tester')) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.left >= -0.5 && box.right <= width + 0.5) continue;
    let scroller = el.parentElement;
    while (scroller && !scrolls(scroller)) scroller = scroller.parentElement;
    const fits = scroller && scroller.getBoundingClientRect().left >= -0.5 &&
                 scroller.getBoundingClientRect().right <= width + 0.5;
    if (!fits) problems.push(`${el.tagName}.${el.getAttribute('class') || ''} spans \
${Math.round(box.left)}..${Math.round(box.right)} of ${width}`);
  }
  return {problems: problems.slice(0, 20), scrollWidth: document.documentElement.scrollWidth, width};
}
"""

# Marks plotly drew, per figure[data-chart]: bars (one path per bar), error bars, Sankey links, heatmap cell texts.
CHART_MARKS = """
() => Object.fromEntries([...document.querySelectorAll('figure[data-chart]')].map(f => [f.dataset.chart, {
  bars: f.querySelectorAll('.barlayer .point').length,
  errorBars: f.querySelectorAll('.errorbar').length,
  sankeyLinks: f.querySelectorAll('.sankey-link').length,
  sankeyNodes: f.querySelectorAll('.sankey-node').length,
  cellTexts: f.querySelectorAll('.heatmaplayer text, .hm text').length,
  width: Math.round(f.getBoundingClientRect().width),
  plotWidth: Math.round((f.querySelector('svg.main-svg') || f).getBoundingClientRect().width),
}]))
"""


PLOTS_FIT = """() => [...document.querySelectorAll('.plotly-graph-div')].every(div =>
  Math.abs(div.querySelector('svg.main-svg').getBoundingClientRect().width - div.getBoundingClientRect().width) < 1)"""


def launch_chromium(playwright):
    return playwright.chromium.launch(
        executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox", "--disable-gpu"]
    )


def open_offline(browser, path: Path, width: int, height: int = 900):
    """A tab at `width` px showing the report with every request but file:// refused; returns (tab, requests made
    to other addresses, script errors)."""
    tab = browser.new_page(viewport={"width": width, "height": height})
    refused: list[str] = []
    errors: list[str] = []

    def route(request_route):
        url = request_route.request.url
        if url.startswith("file://"):
            request_route.continue_()
        else:
            refused.append(url)
            request_route.abort()

    tab.route("**/*", route)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(path.as_uri())
    tab.wait_for_function(
        "() => [...document.querySelectorAll('.plotly-graph-div')].every(d => d.querySelector('svg.main-svg'))"
    )
    # charts refit to their boxes once the page is laid out; a chart that never does fails the width checks
    with contextlib.suppress(PlaywrightTimeout):
        tab.wait_for_function(PLOTS_FIT, timeout=5000)
    tab.wait_for_timeout(800)  # a refitted Sankey animates its nodes to their places
    return tab, refused, errors
