"""Small inline-SVG charts: grouped bars and heatmaps. Deterministic, every label escaped."""

from __future__ import annotations

from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2")


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
             f'<text x="4" y="34" font-size="10" fill="#555">rows: gold, columns: predicted</text>']
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
