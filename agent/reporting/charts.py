"""The reports' charts, drawn by plotly in the reader's browser: responsive (they fit their box at any width),
with tooltips. Each chart is a <figure data-chart=ID> whose plot div has the fixed id `chart-ID`, so the same
input gives the same page byte for byte.

plotly reads a few HTML tags inside labels (<b>, <br>, <a href>); every label is escaped first, so a hostile
element name shows as typed and never becomes markup.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from html import escape
from typing import Any

from agent.reporting.kit import Html, esc

PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#b07aa1",
    "#9c755f",
    "#edc948",
    "#ff9da7",
    "#bab0ac",
    "#1f77b4",
    "#8c564b",
    "#17becf",
)
CONFIG = {"responsive": True, "displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]+")


# plotly's responsive mode follows the window's size only. A chart drawn while the page is still being parsed can
# see its box change afterwards (a grid gains its second chart): refit every chart whenever its own box changes.
@cache
def _template() -> Any:  # a plotly layout Template (plotly ships no types)
    import plotly.graph_objects as go

    axis = {"automargin": True, "gridcolor": "#eaeef2", "zerolinecolor": "#8c959f", "linecolor": "#d0d7de"}
    return go.layout.Template(
        layout={
            "font": {
                "family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
                "size": 12,
                "color": "#1f2328",
            },
            "colorway": list(PALETTE),
            "paper_bgcolor": "#ffffff",
            "plot_bgcolor": "#ffffff",
            "margin": {"l": 8, "r": 16, "t": 28, "b": 8},
            "xaxis": axis,
            "yaxis": axis,
            "hoverlabel": {"align": "left"},
            "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "xanchor": "left"},
        }
    )


def label(text: object) -> str:
    """A text for plotly: escaped, so plotly's own tag parsing finds no tags in it."""
    return escape(str(text), quote=False)


def chart_div_id(chart_id: str) -> str:
    return "chart-" + _ID_CHARS.sub("-", chart_id)


def figure(chart_id: str, fig: Any, title: str, caption: str = "", *, height: int = 340, min_width: int = 0) -> Html:
    """The figure with its title and caption in HTML (wrapping on narrow screens, never over the plot). With
    `min_width`, a plot that cannot be read narrower scrolls sideways inside its own box instead of shrinking."""
    import plotly.io as pio

    fig.update_layout(template=_template(), height=height, autosize=True)
    div = pio.to_html(
        fig,
        include_plotlyjs=False,
        full_html=False,
        div_id=chart_div_id(chart_id),
        config=CONFIG,
        default_width="100%",
        default_height=f"{height}px",
    )
    if min_width:
        div = f"<div class='chart-scroll'><div style='min-width:{min_width}px'>{div}</div></div>"
    text = f"<strong>{esc(title)}</strong>" + (f" {esc(caption)}" if caption else "")
    return Html(f"<figure class='chart' data-chart='{esc(chart_id)}'><figcaption>{text}</figcaption>{div}</figure>")


def load_plotly() -> None:
    """Load plotly's classes the reports draw with (plotly loads each on its first use, about 0.2 s here together)."""
    import plotly.graph_objects as go
    import plotly.io  # noqa: F401 - imported for its side effect: loaded once, here

    for name in ("Figure", "Layout", "Bar", "Sankey"):
        getattr(go, name)


def funnel(
    chart_id: str,
    title: str,
    caption: str,
    stages: Sequence[str],
    counts: Sequence[int],
    total: int,
    intervals: Sequence[tuple[float, float]],
) -> Html:
    """One horizontal bar per funnel stage: the share of twins that reached it, with its confidence interval."""
    import plotly.graph_objects as go

    shares = [count / total if total else 0.0 for count in counts]
    names = [label(f"{stage} ({count} of {total})") for stage, count in zip(stages, counts, strict=True)]
    fig = go.Figure(
        go.Bar(
            y=names,
            x=shares,
            orientation="h",
            marker_color=PALETTE[0],
            name="twins",
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [hi - s for s, (_, hi) in zip(shares, intervals, strict=True)],
                "arrayminus": [s - lo for s, (lo, _) in zip(shares, intervals, strict=True)],
                "color": "#1f2328",
                "thickness": 1.5,
            },
            customdata=[[lo, hi] for lo, hi in intervals],
            hovertemplate="%{y}: %{x:.0%} [%{customdata[0]:.0%}, %{customdata[1]:.0%}]<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis={"range": [0, 1.02], "tickformat": ".0%", "title": {"text": "share of twins"}},
        yaxis={"autorange": "reversed"},
        showlegend=False,
    )
    return figure(chart_id, fig, title, caption, height=90 + 46 * len(stages))


def rate_bars(
    chart_id: str,
    title: str,
    caption: str,
    categories: Sequence[str],
    series: Mapping[str, Sequence[tuple[float, float, float]]],
) -> Html:
    """Grouped vertical bars, one per (category, series): a rate with a whisker from its interval's low to high."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, values in series.items():
        fig.add_bar(
            name=label(name),
            x=[label(c) for c in categories],
            y=[v[0] for v in values],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [hi - r for r, _, hi in values],
                "arrayminus": [r - lo for r, lo, _ in values],
                "color": "#1f2328",
                "thickness": 1.5,
            },
            customdata=[[lo, hi] for _, lo, hi in values],
            hovertemplate=f"{label(name)}, %{{x}}: %{{y:.1%}} [%{{customdata[0]:.1%}}, "
            "%{customdata[1]:.1%}]<extra></extra>",
        )
    top = max((hi for values in series.values() for _, _, hi in values), default=0)
    fig.update_layout(barmode="group", yaxis={"tickformat": ".0%", "range": [0, min(1.0, top * 1.1) or 1]})
    return figure(chart_id, fig, title, caption, height=360)


def stacked_shares(
    chart_id: str, title: str, caption: str, categories: Sequence[str], stacks: Mapping[str, Sequence[float]]
) -> Html:
    """One horizontal 100% bar per category (e.g. a variant), split into the stacks' shares."""
    import plotly.graph_objects as go

    totals = [sum(stacks[name][i] for name in stacks) or 1 for i in range(len(categories))]
    fig = go.Figure()
    for name, counts in stacks.items():
        fig.add_bar(
            name=label(name),
            y=[label(c) for c in categories],
            x=[c / t for c, t in zip(counts, totals, strict=True)],
            orientation="h",
            customdata=list(counts),
            hovertemplate=f"%{{y}}, {label(name)}: %{{x:.0%}} (%{{customdata}})<extra></extra>",
        )
    fig.update_layout(barmode="stack", xaxis={"tickformat": ".0%", "range": [0, 1]}, yaxis={"autorange": "reversed"})
    return figure(chart_id, fig, title, caption, height=130 + 44 * len(categories))


def diverging_bars(
    chart_id: str,
    title: str,
    caption: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    hover: Mapping[str, Sequence[str]] | None = None,
) -> Html:
    """One row per label (e.g. a persona), a horizontal bar per series from zero: a change in points."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, values in series.items():
        texts = [label(t) for t in (hover or {}).get(name, [""] * len(values))]
        fig.add_bar(
            name=label(name),
            y=[label(t) for t in labels],
            x=list(values),
            orientation="h",
            text=texts,
            textposition="none",
            hovertemplate=f"%{{y}}<br>{label(name)}: %{{x:+.0f}} points %{{text}}<extra></extra>",
        )
    fig.update_layout(barmode="group", xaxis={"zeroline": True, "ticksuffix": " pt"}, yaxis={"autorange": "reversed"})
    return figure(chart_id, fig, title, caption, height=120 + (18 * len(series) + 10) * len(labels))


def sankey(
    chart_id: str,
    title: str,
    caption: str,
    nodes: Sequence[str],
    links: Sequence[tuple[int, int, int]],
    *,
    hover: Sequence[str] | None = None,
    column: Sequence[int] | None = None,
) -> Html:
    """Paths as flows: one link per transition (source node, target node, how many twins took it). `hover` names
    each node in its tooltip. With `column` (each node's column, ends in the last one) the nodes are placed in those
    columns, the last set apart so its labels never run into the column before; with many columns the plot keeps
    110 px a column and scrolls sideways on a narrow screen."""
    import plotly.graph_objects as go

    node = {
        "label": [label(n) for n in nodes],
        "pad": 14,
        "thickness": 14,
        "color": PALETTE[0],
        "line": {"width": 0},
        "customdata": [label(h) for h in (hover or nodes)],
        "hovertemplate": "%{customdata}: %{value}<extra></extra>",
    }
    columns = rows = 0
    if column is not None:
        node["x"], node["y"] = _sankey_positions(column, links)
        columns, rows = max(column) + 1, max(Counter(column).values())
    fig = go.Figure(
        go.Sankey(
            arrangement="snap" if column is None else "fixed",
            valueformat="d",
            node=node,
            link={
                "source": [s for s, _, _ in links],
                "target": [t for _, t, _ in links],
                "value": [v for _, _, v in links],
                "color": "rgba(78,121,167,0.35)",
                "hovertemplate": "%{source.customdata} → %{target.customdata}: %{value}<extra></extra>",
            },
        )
    )
    return figure(
        chart_id,
        fig,
        title,
        caption,
        height=max(300, min(720, 80 + 56 * rows)),
        min_width=110 * columns if columns > 3 else 0,
    )


def _sankey_positions(column: Sequence[int], links: Sequence[tuple[int, int, int]]) -> tuple[list[float], list[float]]:
    """x by column (the last column set apart by a wider gap), y stacking each column's nodes by their flow."""
    flow_in: Counter[int] = Counter()
    flow_out: Counter[int] = Counter()
    for source, target, value in links:
        flow_out[source] += value
        flow_in[target] += value
    size = [max(flow_in[i], flow_out[i], 1) for i in range(len(column))]
    last = max(column)
    xs = [0.999 if c == last and last else 0.001 + 0.7 * c / max(1, last - 1) for c in column]
    ys = [0.0] * len(column)
    for c in set(column):
        members = [i for i, col in enumerate(column) if col == c]
        total = sum(size[i] for i in members)
        below = 0
        for i in members:
            ys[i] = 0.02 + 0.96 * (below + size[i] / 2) / total
            below += size[i]
    return xs, ys


def heatmap(chart_id: str, title: str, caption: str, labels: Sequence[str], matrix: Sequence[Sequence[int]]) -> Html:
    """A confusion matrix: rows gold, columns predicted, shaded by the row's share, the count in every cell."""
    import plotly.graph_objects as go

    names = [label(n) for n in labels]
    shares = [[count / (sum(row) or 1) for count in row] for row in matrix]
    fig = go.Figure(
        go.Heatmap(
            z=shares,
            x=names,
            y=names,
            text=[[str(c) for c in row] for row in matrix],
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            zmax=1,
            xgap=1,
            ygap=1,
            colorbar={"title": {"text": "row share"}, "tickformat": ".0%"},
            hovertemplate="gold %{y}, predicted %{x}: %{text} (%{z:.0%} of the row)<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis={"title": {"text": "predicted"}, "tickangle": -45, "type": "category"},
        yaxis={"title": {"text": "gold"}, "autorange": "reversed", "type": "category"},
    )
    return figure(
        chart_id,
        fig,
        title,
        caption,
        height=160 + 28 * len(labels),
        min_width=200 + 30 * len(labels) if len(labels) > 6 else 0,
    )  # many labels: scroll, never cram


def grouped_bars(
    chart_id: str, title: str, caption: str, categories: Sequence[str], series: dict[str, Sequence[float]]
) -> Html:
    """Counts side by side, one bar per (category, series)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, values in series.items():
        fig.add_bar(
            name=label(name),
            x=[label(c) for c in categories],
            y=list(values),
            hovertemplate=f"{label(name)}, %{{x}}: %{{y}}<extra></extra>",
        )
    fig.update_layout(barmode="group", xaxis={"type": "category", "tickangle": -40})
    return figure(chart_id, fig, title, caption, height=380)
