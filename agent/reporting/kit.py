"""One look for every twinsim report: the page shell with one stylesheet and, when the page has charts, plotly's
JavaScript inlined once, so a report is a single file that opens offline; and the blocks every report is made of
(sections, tables that scroll inside their own box, notices, a methods section).

Every text placed through the kit is escaped (rationales, element names and page titles come from models and web
pages), except `Html`: markup the kit or a report built from escaped parts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from agent.reporting.chart_library import REFIT_JS, plotly_js

STYLE = """
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;
line-height:1.45;font-size:15px}
main{max-width:1180px;margin:0 auto;padding:16px}
h1{font-size:1.55rem;margin:8px 0 12px;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:34px 0 10px;padding-bottom:4px;border-bottom:1px solid #d0d7de}
h3{font-size:1.05rem;margin:22px 0 8px}
h4{font-size:.95rem;margin:16px 0 6px}
p,li,dd,dt,blockquote,figcaption,summary,h3,h4,q{overflow-wrap:anywhere}
td{overflow-wrap:break-word}
a{color:#0969da}
code{font-size:.9em;overflow-wrap:anywhere}
.table-wrap{max-width:100%;overflow-x:auto;margin:8px 0 20px}
table{border-collapse:collapse;font-size:14px}
td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.num,th.num{text-align:right}
td.num{white-space:nowrap}
td.wide-text{min-width:16em}
td .url{word-break:break-all}
.chart-scroll{max-width:100%;overflow-x:auto}
tr.significant td{background:#e6f4e0}
.notice{border-left:5px solid #0969da;background:#ddf4ff;padding:10px 14px;margin:14px 0;border-radius:4px}
.notice.warning{border-color:#bf8700;background:#fff8c5}
.notice.error{border-color:#cf222e;background:#ffebe9}
.notice strong:first-child{display:block;margin-bottom:2px}
.muted{color:#57606a;font-size:13px}
.error{color:#b00020}
details{margin:8px 0}
details>summary{cursor:pointer}
blockquote{margin:6px 0 6px 12px;padding-left:10px;border-left:3px solid #d0d7de;color:#3d444d}
blockquote .who{display:block;font-size:12px;color:#57606a;margin-top:2px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,460px),1fr));gap:18px}
figure.chart{margin:10px 0 18px;min-width:0}
figure.chart>figcaption{font-size:13px;color:#57606a;margin-bottom:4px}
figure.chart>figcaption strong{color:#1f2328;font-size:14px}
.plotly-graph-div{max-width:100%}
.persona-cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,330px),1fr));gap:12px}
.persona-card{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;min-width:0}
.persona-card h3{margin:0 0 2px}
.persona-card dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 10px;margin:8px 0;font-size:13px}
.persona-card dt{color:#57606a}
.persona-card dd{margin:0}
.persona-card ul{margin:4px 0 8px;padding-left:18px;font-size:13px}
.trait{display:grid;grid-template-columns:8.5em minmax(0,1fr) 7.5em;gap:6px;align-items:center;font-size:13px}
.bar{background:#eaeef2;height:8px;border-radius:4px;overflow:hidden}
.bar>span{display:block;height:100%;background:#0969da}
a.persona{white-space:normal}
.twin{margin:18px 0 26px}
.step{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;margin:10px 0;display:grid;gap:12px;min-width:0}
.step>*{min-width:0}
.step h4{margin:0 0 4px}
.step dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 10px;margin:4px 0;font-size:14px}
.step dt{color:#57606a}
.step dd{margin:0}
@media (min-width:900px){.step.with-shot{grid-template-columns:minmax(0,1fr) minmax(0,1.9fr)}}
.shot{margin:0}
.shot-frame{position:relative;display:block;border:1px solid #d0d7de;line-height:0}
.shot-frame img{display:block;width:100%;height:auto}
.mark{position:absolute;border:3px solid #d1242f;border-radius:3px;box-shadow:0 0 0 2px rgba(255,255,255,.85);
pointer-events:none}
.shot figcaption{font-size:12px;color:#57606a;margin-top:4px}
footer{margin:40px 0 12px;font-size:12px;color:#57606a;overflow-wrap:anywhere}
"""


class Html(str):
    """Markup already escaped (made by the kit or from escaped parts): placed as it is."""


def esc(value: object) -> str:
    """Escape anything but Html."""
    return value if isinstance(value, Html) else escape(str(value))


def join(parts: Iterable[object]) -> Html:
    return Html("".join(esc(part) for part in parts))


def pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{100 * value:.{digits}f}%"


def page(title: str, body: Sequence[object], *, footer: object = "", charts: bool = True) -> str:
    """The whole document. With charts, plotly's JavaScript (about 4.8 MB) is inlined once in the head."""
    script = refit = ""
    if charts:
        script, refit = f"<script>{plotly_js()}</script>", f"<script>{REFIT_JS}</script>"
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{esc(title)}</title>"
        f"<style>{STYLE}</style>{script}</head><body><main>{join(body)}"
        f"<footer>{esc(footer)}</footer></main>{refit}</body></html>"
    )


def section(title: str, *parts: object, anchor: str | None = None, level: int = 2) -> Html:
    ident = f" id='{esc(anchor)}'" if anchor else ""
    return Html(f"<h{level}{ident}>{esc(title)}</h{level}>" + join(parts))


def paragraph(*parts: object, muted: bool = False) -> Html:
    return Html(f"<p{' class=muted' if muted else ''}>{join(parts)}</p>")


def notice(title: str, *parts: object, kind: str = "info") -> Html:
    """A box above the figures it qualifies: kind is info, warning or error."""
    return Html(f"<div class='notice {esc(kind)}' role='note'><strong>{esc(title)}</strong>{join(parts)}</div>")


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    numeric: Sequence[int] = (),
    wide_text: Sequence[int] = (),
    row_classes: Sequence[str] | None = None,
) -> Html:
    """A table in its own horizontally scrolling box, so a wide one never widens the page. `numeric` columns are
    right-aligned, `wide_text` ones (rationales, reasons) keep a readable minimum width."""

    def cls(j: int) -> str:
        names = (["num"] if j in numeric else []) + (["wide-text"] if j in wide_text else [])
        return f" class='{' '.join(names)}'" if names else ""

    head = "".join(f"<th{cls(j)}>{esc(h)}</th>" for j, h in enumerate(header))
    body = []
    for i, row in enumerate(rows):
        row_class = f" class='{esc(row_classes[i])}'" if row_classes and row_classes[i] else ""
        body.append(f"<tr{row_class}>" + "".join(f"<td{cls(j)}>{esc(c)}</td>" for j, c in enumerate(row)) + "</tr>")
    return Html(
        f"<div class='table-wrap'><table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def methods(*paragraphs: object) -> Html:
    """How the figures were made: the last section of every report."""
    return section("Methods", *(paragraph(p) for p in paragraphs), anchor="methods")
