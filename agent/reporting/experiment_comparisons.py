"""The experiment page's statistics: each variant against the control, outcome by outcome and within segments,
the difference in points first, the odds ratio with what it is made of, and the number formats the page shares."""

from __future__ import annotations

from agent.reporting.kit import Html, paragraph, pct, section, table

RARE = 0.05  # an outcome this rare (or this common) in either variant: its odds ratio is labelled
P_ONE = 0.9995  # p-values that print as 1.000


def points(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:+.1f}"


def p_text(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def rate_with_ci(rate: dict | None) -> str:
    if not rate:
        return "n/a"
    return f"{pct(rate.get('rate'))} [{pct(rate.get('ci_low'))}, {pct(rate.get('ci_high'))}]"


SHORT_TESTS = {
    "McNemar chi-square (continuity-corrected)": "McNemar χ²",
    "McNemar exact (binomial)": "McNemar exact",
    "two-proportion z-test": "z-test",
    "Fisher exact": "Fisher exact",
}


def outcome_label(outcome: str) -> str:
    return f"clicked {outcome.removeprefix('target:')}" if outcome.startswith("target:") else outcome


def _rare(r: dict) -> bool:
    rates = [v for v in (r.get("rate_control"), r.get("rate_variant")) if v is not None]
    return bool(rates) and (min(rates) < RARE or max(rates) > 1 - RARE)


def _odds_ratio(r: dict) -> str:
    """The odds ratio with what it is made of, where it misleads: paired, the flips each way (5 against 0 reads as a
    ratio of 11, +0.5 being added to a zero count); unpaired on a rare outcome, the base rates (a change of under a
    point can read as a ratio of 10)."""
    value = r.get("odds_ratio")
    if value is None:
        return "n/a"
    table = r.get("table") or {}
    if "variant_only" in table and "control_only" in table:
        return f"{value:.2f} (flips {table['variant_only']} : {table['control_only']})"
    if _rare(r):
        return f"{value:.2f} (rare: {pct(r.get('rate_control'))} → {pct(r.get('rate_variant'))})"
    return f"{value:.2f}"


COMPARISON_HEADER = [
    "comparison",
    "outcome",
    "difference, points [CI]",
    "control",
    "variant",
    "adjusted p",
    "significant",
    "p",
    "test",
    "Cohen's h",
    "odds ratio",
]


def _comparison_rows(comparisons: list[dict], with_scope: bool = False) -> list[tuple[dict, list]]:
    rows = []
    for comparison in comparisons:
        for outcome, r in (comparison.get("outcomes") or {}).items():
            low, high = points(r.get("difference_ci_low")), points(r.get("difference_ci_high"))
            ci = f"{points(r.get('difference'))} [{low}, {high}]"
            row = [
                f"{r.get('variant')} vs {r.get('control')}",
                outcome_label(outcome),
                ci,
                pct(r.get("rate_control")),
                pct(r.get("rate_variant")),
                p_text(r.get("p_adjusted")),
                "yes" if r.get("significant") else "no",
                p_text(r.get("p_value")),
                SHORT_TESTS.get(r.get("test"), r.get("test", "n/a")),
                num(r.get("cohens_h")),
                _odds_ratio(r),
            ]
            rows.append((r, ([comparison.get("scope", "")] if with_scope else []) + row))
    return rows


def _comparison_tables(rows: list[tuple[dict, list]], header: list[str], indistinguishable: bool) -> list[Html]:
    """The tests that say something, in a table; those with p = 1.000 (identical or all but identical rates)
    summarised in a sentence and listed in a collapsed table."""
    shown = [(r, row) for r, row in rows if r.get("p_value") is None or r["p_value"] < P_ONE]
    flat = [(r, row) for r, row in rows if r.get("p_value") is not None and r["p_value"] >= P_ONE]
    offset = len(header) - len(COMPARISON_HEADER)
    numeric = tuple(j + offset for j in (2, 3, 4, 5, 7, 9))
    parts: list[Html] = []
    if shown:
        parts.append(
            table(
                header,
                [row for _, row in shown],
                numeric=numeric,
                row_classes=["significant" if r.get("significant") else "" for r, _ in shown],
            )
        )
    if flat:
        widest = max(abs(r.get("difference") or 0) for r, _ in flat)
        why = " As expected: the twins could not see the difference." if indistinguishable else ""
        parts.append(
            paragraph(
                f"{len(flat)} of {len(rows)} tests gave p = 1.000: the rates were the same or all but "
                f"the same in both variants (the largest difference {100 * widest:.1f} points).{why}",
                muted=not indistinguishable,
            )
        )
        parts.append(
            Html(
                f"<details><summary>The {len(flat)} test{'s' if len(flat) != 1 else ''} with p = 1.000</summary>"
                + table(header, [row for _, row in flat], numeric=numeric)
                + "</details>"
            )
        )
    return parts


def comparisons_section(analysis: dict, indistinguishable: bool) -> list[Html]:
    comparisons = analysis.get("comparisons") or []
    correction = analysis.get("correction") or {}
    parts: list[object] = [
        paragraph(
            f"The difference is variant minus control, in percentage points, with its "
            f"{(analysis.get('settings') or {}).get('confidence_level', 0.95):.0%} interval. p-values are "
            f"adjusted with {correction.get('method', 'n/a')} across all {correction.get('n_tests', 'n/a')} tests "
            f"of the experiment; significant means adjusted p < {correction.get('alpha', 'n/a')}. Read the "
            "difference in points first: an odds ratio can be large for a small change, so it is shown with what "
            "it is made of (paired: the runs that flipped each way, 5 : 0 giving 11; unpaired, on an outcome "
            f"below {RARE:.0%} or above {1 - RARE:.0%} in either variant: the base rates).",
            muted=True,
        )
    ]
    for comparison in comparisons:
        parts.append(paragraph(f"{comparison.get('variant')}: {comparison.get('pairing', '')}.", muted=True))
    parts += _comparison_tables(_comparison_rows(comparisons), COMPARISON_HEADER, indistinguishable)
    dist_rows, dist_classes = [], []
    for comparison in comparisons:
        for name, d in (comparison.get("distributions") or {}).items():
            if d.get("applicable"):
                note = "; ".join(d.get("notes") or [])
                dist_rows.append(
                    [
                        f"{d.get('variant')} vs {d.get('control')}",
                        name.replace("_", " "),
                        "chi-square",
                        f"{num(d.get('statistic'))} (dof {d.get('dof')})",
                        p_text(d.get("p_value")),
                        p_text(d.get("p_adjusted")),
                        num(d.get("cramers_v")),
                        "yes" if d.get("significant") else "no",
                        note,
                    ]
                )
            else:
                dist_rows.append(
                    [
                        f"{d.get('variant')} vs {d.get('control')}",
                        name.replace("_", " "),
                        "not applicable",
                        "n/a",
                        "n/a",
                        "n/a",
                        "n/a",
                        "no",
                        d.get("reason", ""),
                    ]
                )
            dist_classes.append("significant" if d.get("significant") else "")
    if dist_rows:
        parts += [
            Html("<h3>Distributions of the first action</h3>"),
            table(
                [
                    "comparison",
                    "distribution",
                    "test",
                    "statistic",
                    "p",
                    "adjusted p",
                    "Cramér's V",
                    "significant",
                    "notes",
                ],
                dist_rows,
                numeric=(3, 4, 5, 6),
                wide_text=(8,),
                row_classes=dist_classes,
            ),
        ]
    return [section("Comparisons with the control", *parts)]


def segments_section(analysis: dict, indistinguishable: bool) -> list[Html]:
    segments, skipped = analysis.get("segments") or [], analysis.get("segments_skipped") or []
    if not segments and not skipped:
        return []
    parts: list[object] = []
    comparisons = [c for s in segments for c in s.get("comparisons") or []]
    if comparisons:
        parts += _comparison_tables(
            _comparison_rows(comparisons, with_scope=True), ["segment", *COMPARISON_HEADER], indistinguishable
        )
    if skipped:
        parts.append(
            table(
                ["segment", "samples per variant", "skipped because"],
                [
                    [
                        f"{s.get('dimension')}={s.get('bucket')}",
                        ", ".join(f"{k}: {v}" for k, v in (s.get("sizes") or {}).items()),
                        s.get("reason", ""),
                    ]
                    for s in skipped
                ],
                wide_text=(2,),
            )
        )
    return [section("Segments", *parts)]
