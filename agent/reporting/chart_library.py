"""The chart library's JavaScript, as a report page carries it: plotly.js from the plotly wheel, inlined once per
page (never fetched from a CDN, so a report opens offline), and a small script that refits each chart to its box."""

from __future__ import annotations

from functools import cache

REFIT_JS = (
    "(() => { const refit = new ResizeObserver(entries => entries.forEach(entry => {"
    " if (entry.target.querySelector('.main-svg')) Plotly.Plots.resize(entry.target); }));"
    " document.querySelectorAll('.plotly-graph-div').forEach(div => refit.observe(div)); })();"
)


@cache
def plotly_js() -> str:
    """plotly.js, bundled in the plotly wheel (about 4.8 MB)."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()
