"""Small inline-SVG charts: grouped bars (optionally with error bars), 100% stacked bars and heatmaps.
Deterministic, every label escaped."""

from __future__ import annotations

from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#9c755f", "#edc948", "#ff9da7",
           "#bab0ac", "#1f77b4", "#8c564b", "#17becf")


def bar_chart(categories: list[str], series: dict[str, list[float]], title: str, value_format: str = "{:.0f}") -> str:
    """Grouped vertical bars, one group per category, one bar per series, with a legend."""
    width, height, left, bottom, top = max(420, 60 * len(categories) + 80), 300, 50, 90, 40
    plot_h = height - bottom - top
    peak = max((v for values in series.values() for v in values), default=0) or 1
    group_w = (width - left - 20) / max(1, len(categories))
    bar_w = group_w * 0.8 / max(1, len(series))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
             f'<text x="{width / 2:.0f}" y="20" text-anchor="middle" font-size="14" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#333"/>']
    for i, category in enumerate(categories):
        x0 = left + i * group_w + group_w * 0.1
        for j, (name, values) in enumerate(series.items()):
            value = values[i]
            h = plot_h * value / peak
            x = x0 + j * bar_w
            parts.append(f'<rect x="{x:.1f}" y="{height - bottom - h:.1f}" width="{bar_w - 1:.1f}" height="{h:.1f}" '
                         f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(name)}: {escape(value_format.format(value))}</title></rect>')
            parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{height - bottom - h - 3:.1f}" font-size="9" '
                         f'text-anchor="middle">{escape(value_format.format(value))}</text>')
        cx = left + i * group_w + group_w / 2
        parts.append(f'<text x="{cx:.1f}" y="{height - bottom + 12}" font-size="10" text-anchor="end" '
                     f'transform="rotate(-40 {cx:.1f} {height - bottom + 12})">{escape(category)}</text>')
    for j, name in enumerate(series):
        parts.append(f'<rect x="{left + j * 110}" y="28" width="10" height="10" fill="{PALETTE[j % len(PALETTE)]}"/>'
                     f'<text x="{left + j * 110 + 14}" y="37" font-size="11">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def heatmap(labels: list[str], matrix: list[list[int]], title: str) -> str:
    """A confusion matrix: rows gold, columns predicted, shaded by the row's share, counts in the cells."""
    cell, left, top = 34, 130, 130
    size_w, size_h = left + cell * len(labels) + 10, top + cell * len(labels) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size_w}" height="{size_h}" role="img" aria-label="{escape(title)}">',
             f'<text x="4" y="16" font-size="14" font-weight="bold">{escape(title)}</text>',
             '<text x="4" y="34" font-size="10" fill="#555">rows: gold, columns: predicted</text>']
    for j, label in enumerate(labels):
        x = left + j * cell + cell / 2
        parts.append(f'<text x="{x:.0f}" y="{top - 6}" font-size="10" transform="rotate(-55 {x:.0f} {top - 6})">{escape(label)}</text>')
    for i, (label, row) in enumerate(zip(labels, matrix)):
        total = sum(row) or 1
        y = top + i * cell
        parts.append(f'<text x="{left - 6}" y="{y + cell / 2 + 4:.0f}" font-size="10" text-anchor="end">{escape(label)}</text>')
        for j, count in enumerate(row):
            share = count / total
            shade = int(255 - 200 * share)
            colour = f"rgb({shade},{shade + (255 - shade) // 3},255)"
            parts.append(f'<rect class="cell" x="{left + j * cell}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{colour}">'
                         f"<title>{escape(label)} -> {escape(labels[j])}: {count}</title></rect>")
            parts.append(f'<text x="{left + j * cell + cell / 2:.0f}" y="{y + cell / 2 + 4:.0f}" font-size="10" '
                         f'text-anchor="middle" fill="{"#fff" if share > 0.55 else "#000"}">{count}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bar_chart_with_errors(categories: list[str], series: dict[str, list[float]],
                          intervals: dict[str, list[tuple[float, float]]], title: str,
                          value_format: str = "{:.0%}", y_max: float | None = None) -> str:
    """Grouped bars with an error bar (low, high) on each, e.g. rates with their confidence intervals."""
    width, height, left, bottom, top = max(420, 70 * len(categories) * max(1, len(series)) // 2 + 100), 300, 50, 90, 46
    plot_h = height - bottom - top
    highs = [high for spans in intervals.values() for _, high in spans] + [v for values in series.values() for v in values]
    peak = y_max or max(highs, default=0) or 1
    group_w = (width - left - 20) / max(1, len(categories))
    bar_w = group_w * 0.8 / max(1, len(series))

    def y_of(value: float) -> float:
        return height - bottom - plot_h * max(0.0, min(value, peak)) / peak

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
             f'<text x="{width / 2:.0f}" y="18" text-anchor="middle" font-size="14" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#333"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#333"/>']
    for tick in (0, 0.5, 1):
        parts.append(f'<text x="{left - 4}" y="{y_of(peak * tick) + 3:.1f}" font-size="9" text-anchor="end">'
                     f'{escape(value_format.format(peak * tick))}</text>')
    for i, category in enumerate(categories):
        x0 = left + i * group_w + group_w * 0.1
        for j, (name, values) in enumerate(series.items()):
            value, (low, high) = values[i], intervals[name][i]
            x, y = x0 + j * bar_w, y_of(value)
            label = f"{name}: {value_format.format(value)} [{value_format.format(low)}, {value_format.format(high)}]"
            parts.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar_w - 2:.1f}" height="{height - bottom - y:.1f}" '
                         f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(label)}</title></rect>')
            cx = x + (bar_w - 2) / 2
            parts.append(f'<path class="error-bar" d="M{cx:.1f} {y_of(low):.1f}V{y_of(high):.1f}M{cx - 4:.1f} {y_of(low):.1f}'
                         f'h8M{cx - 4:.1f} {y_of(high):.1f}h8" stroke="#222" fill="none"/>')
            parts.append(f'<text x="{cx + 6:.1f}" y="{y - 3:.1f}" font-size="9">{escape(value_format.format(value))}</text>')
        cx = left + i * group_w + group_w / 2
        parts.append(f'<text x="{cx:.1f}" y="{height - bottom + 12}" font-size="10" text-anchor="end" '
                     f'transform="rotate(-30 {cx:.1f} {height - bottom + 12})">{escape(category)}</text>')
    parts += _legend(list(series), left, 28)
    parts.append("</svg>")
    return "".join(parts)


def stacked_bar_chart(categories: list[str], stacks: dict[str, list[float]], title: str) -> str:
    """One horizontal 100% bar per category, split by share into the stacks (e.g. action types per variant)."""
    bar_h, left, top, plot_w = 26, 110, 34, 420
    height = top + bar_h * len(categories) + 16 + 16 * _legend_lines(list(stacks), plot_w)
    width = left + plot_w + 20
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
             f'<text x="{width / 2:.0f}" y="18" text-anchor="middle" font-size="14" font-weight="bold">{escape(title)}</text>']
    names = list(stacks)
    for i, category in enumerate(categories):
        y = top + i * bar_h
        total = sum(stacks[name][i] for name in names) or 1
        parts.append(f'<text x="{left - 6}" y="{y + bar_h / 2 + 4:.0f}" font-size="11" text-anchor="end">{escape(category)}</text>')
        x = float(left)
        for j, name in enumerate(names):
            share = stacks[name][i] / total
            w = plot_w * share
            if w <= 0:
                continue
            parts.append(f'<rect class="segment" x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h - 4}" '
                         f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(category)}, {escape(name)}: {share:.0%}</title></rect>')
            if w > 28:
                parts.append(f'<text x="{x + w / 2:.1f}" y="{y + bar_h / 2 + 2:.0f}" font-size="9" fill="#fff" '
                             f'text-anchor="middle">{share:.0%}</text>')
            x += w
    parts += _legend(names, left, top + bar_h * len(categories) + 16, plot_w)
    parts.append("</svg>")
    return "".join(parts)


def _legend(names: list[str], x: int, y: int, max_width: int = 10_000) -> list[str]:
    """One swatch and name per series, wrapping onto a new line beyond max_width."""
    parts, offset, line = [], 0, 0
    for j, name in enumerate(names):
        step = 24 + 7 * len(name)
        if offset and offset + step > max_width:
            offset, line = 0, line + 1
        parts.append(f'<rect x="{x + offset}" y="{y - 9 + 16 * line}" width="10" height="10" fill="{PALETTE[j % len(PALETTE)]}"/>'
                     f'<text x="{x + offset + 14}" y="{y + 16 * line}" font-size="11">{escape(name)}</text>')
        offset += step
    return parts


def _legend_lines(names: list[str], max_width: int) -> int:
    lines, offset = 1, 0
    for name in names:
        step = 24 + 7 * len(name)
        if offset and offset + step > max_width:
            offset, lines = 0, lines + 1
        offset += step
    return lines
