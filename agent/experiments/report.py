"""The HTML page of an A/B experiment: whether the twins could see the difference, what each variant did, which
differences hold up after correction (the difference in points first), which personas changed behaviour, how far
twins went, the same within segments, why twins acted (rationale themes with who said them), who the twins are,
and how it was measured.

Built with the report kit (agent/reporting): one self-contained file, charts inline, every text escaped
(rationales and element names come from models and web pages). Each chart sits in a <figure data-chart=...>.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from agent.reporting import charts
from agent.reporting.kit import (
    Html,
    esc,
    methods,
    notice,
    page,
    paragraph,
    section,
    table,
)
from agent.reporting.persona_cards import (
    persona_cards_section,
    persona_label,
    persona_link,
)

CITATION = (
    'Click types follow OPeRA: Wang et al. 2025, "OPeRA: A Dataset of Observation, Persona, Rationale, and Action '
    'for Evaluating LLMs on Human Online Shopping Behavior Simulation", arXiv 2506.05606, CC-BY-4.0.'
)
GROUP_TITLES = {"bought": "bought", "left": "left without buying", "other": "neither (still browsing)"}
ENDED = {"bought": "bought", "left": "left", "other": "ended (neither)"}
RARE = 0.05  # an outcome this rare (or this common) in either variant: its odds ratio is labelled
P_ONE = 0.9995  # p-values that print as 1.000
FLIPS_CHARTED = 30  # personas drawn in a flips chart (the table lists all the results carry)


def render_report(results: dict) -> str:
    """The whole page; any of spec, status, analysis, themes, cost, flips, paths and personas may be missing."""
    spec = results.get("spec") or {}
    analysis = results.get("analysis") or {}
    cards = results.get("personas") or {}
    name = spec.get("name") or "experiment"
    body: list[object] = [Html(f"<h1>twinsim experiment: {esc(name)}</h1>")]
    if spec.get("description"):
        body.append(paragraph(spec["description"]))
    body += _visibility_notice(results.get("visibility") or {}) + _fallback_warning(results.get("cost") or {})
    body += _summary(spec, analysis, results.get("status"))
    if analysis.get("variants"):
        indistinguishable = (results.get("visibility") or {}).get("distinguishable") is False
        body += _outcomes(analysis) + _comparisons(analysis, indistinguishable)
        body += _flips(results.get("flips") or {}, cards) + _paths(results.get("paths") or {})
        body += _first_actions(analysis) + _segments(analysis, indistinguishable)
    else:
        body.append(paragraph("No analysis yet: the experiment has no samples to analyse."))
    body += _task(results.get("task"))
    body += _themes(results.get("themes") or {}, cards)
    population = spec.get("population_size")
    if cards:
        body.append(
            persona_cards_section(
                cards,
                f"Cards for {len(cards)} of {population or len(cards)} personas: "
                "those quoted and those who changed behaviour, then the first by id.",
            )
        )
    body += _cost(results.get("cost") or {})
    if analysis:
        body.append(_methods(analysis))
    return page(f"twinsim experiment: {name}", body, footer=CITATION, charts=bool(analysis.get("variants")))


# -- formatting ------------------------------------------------------------------------------------------------


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _points(value) -> str:
    return "n/a" if value is None else f"{100 * value:+.1f}"


def _p(value) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _num(value, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _rate_with_ci(rate: dict | None) -> str:
    if not rate:
        return "n/a"
    return f"{_pct(rate.get('rate'))} [{_pct(rate.get('ci_low'))}, {_pct(rate.get('ci_high'))}]"


SHORT_TESTS = {
    "McNemar chi-square (continuity-corrected)": "McNemar χ²",
    "McNemar exact (binomial)": "McNemar exact",
    "two-proportion z-test": "z-test",
    "Fisher exact": "Fisher exact",
}


def _outcome_label(outcome: str) -> str:
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
        return f"{value:.2f} (rare: {_pct(r.get('rate_control'))} → {_pct(r.get('rate_variant'))})"
    return f"{value:.2f}"


# -- sections --------------------------------------------------------------------------------------------------


def _variant_names(spec: dict, analysis: dict) -> list[str]:
    if analysis.get("variants"):
        return list(analysis["variants"])
    return [v.get("name", "?") if isinstance(v, dict) else str(v) for v in spec.get("variants") or []]


def _summary(spec: dict, analysis: dict, status) -> list[Html]:
    variants = _variant_names(spec, analysis)
    described = analysis.get("variants") or {}
    population = spec.get("population_size") or max((v.get("n_personas", 0) for v in described.values()), default=None)
    brain = str(spec.get("brain") or "n/a") + (f" ({spec['model']})" if spec.get("model") else "")
    settings = analysis.get("settings") or {}
    rows = [
        ["name", spec.get("name", "n/a")],
        ["variants", ", ".join(f"{v} (control)" if i == 0 else v for i, v in enumerate(variants)) or "n/a"],
        ["population size (personas)", population if population is not None else "n/a"],
        ["samples per persona", spec.get("samples_per_persona", "n/a")],
        ["brain", brain],
        ["seed", spec.get("seed", settings.get("seed", "n/a"))],
        ["targets", ", ".join(spec.get("targets") or settings.get("targets") or []) or "none"],
        ["segments", ", ".join(spec.get("segments") or []) or "none"],
    ]
    if status is not None:
        rows.append(["status", status.get("state", status) if isinstance(status, dict) else status])
        if isinstance(status, dict) and status.get("error"):
            rows.append(["error", status["error"]])
    return [section("Experiment", table(["", "value"], rows))]


def _task(task: dict | None) -> list[Html]:
    """Who reached the task on each variant; nothing when the twins had none."""
    if not task:
        return []
    head = f"<p>Every twin was asked to: <q>{esc(task['goal'])}</q>."
    if task.get("success") is None:
        return [
            section("Task", Html(head + " It has no success criteria, so whether they reached it was not judged.</p>"))
        ]
    criteria = ", ".join(f"{k} {v!r}" for k, v in task["success"].items())
    rows = [[name, v["judged"], v["reached"], _pct(v["share"])] for name, v in task["variants"].items()]
    return [
        section(
            "Task",
            Html(head + f" Reached when a page the twin came to meets {esc(criteria)}.</p>"),
            table(["variant", "twin runs", "reached", "share"], rows, numeric=(1, 2, 3)),
        )
    ]


def _outcomes(analysis: dict) -> list[Html]:
    variants = analysis["variants"]
    outcomes = list(next(iter(variants.values())).get("rates") or {})
    rows = [
        [name, v.get("n", 0), v.get("n_personas", "n/a")]
        + [_rate_with_ci((v.get("rates") or {}).get(o)) for o in outcomes]
        + [_num(v.get("mean_steps"), 1)]
        for name, v in variants.items()
    ]
    level = (analysis.get("settings") or {}).get("confidence_level", 0.95)
    parts: list[object] = [
        paragraph(f"Rates with {level:.0%} bootstrap confidence intervals.", muted=True),
        table(
            ["variant", "samples", "personas"] + [f"{_outcome_label(o)} rate" for o in outcomes] + ["mean steps"],
            rows,
            numeric=tuple(range(1, 4 + len(outcomes))),
        ),
    ]
    if outcomes:
        series = {
            name: [(v["rates"][o]["rate"], v["rates"][o]["ci_low"], v["rates"][o]["ci_high"]) for o in outcomes]
            for name, v in variants.items()
        }
        parts.append(
            charts.rate_bars(
                "outcome-rates",
                "Outcome rates by variant",
                f"Bars: rates; whiskers: {level:.0%} bootstrap intervals. Hover for the figures.",
                [_outcome_label(o) for o in outcomes],
                series,
            )
        )
    return [section("Outcomes per variant", *parts)]


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
            low, high = _points(r.get("difference_ci_low")), _points(r.get("difference_ci_high"))
            ci = f"{_points(r.get('difference'))} [{low}, {high}]"
            row = [
                f"{r.get('variant')} vs {r.get('control')}",
                _outcome_label(outcome),
                ci,
                _pct(r.get("rate_control")),
                _pct(r.get("rate_variant")),
                _p(r.get("p_adjusted")),
                "yes" if r.get("significant") else "no",
                _p(r.get("p_value")),
                SHORT_TESTS.get(r.get("test"), r.get("test", "n/a")),
                _num(r.get("cohens_h")),
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


def _comparisons(analysis: dict, indistinguishable: bool) -> list[Html]:
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
                        f"{_num(d.get('statistic'))} (dof {d.get('dof')})",
                        _p(d.get("p_value")),
                        _p(d.get("p_adjusted")),
                        _num(d.get("cramers_v")),
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


def _flip_text(counts: dict, instances: int) -> str:
    return f"{counts['control']} → {counts['variant']} of {instances}"


def _flips(flips: dict, cards: dict) -> list[Html]:
    comparisons = flips.get("comparisons") or []
    if not comparisons:
        return []
    parts: list[object] = [
        paragraph(
            "Each twin instance ran every variant with the same seed, so its runs are compared one to one: a flip is "
            "an instance that bought (or left) on one variant and not on the other. A rate difference is the flips one "
            "way minus the flips the other way.",
            muted=True,
        )
    ]
    for c in comparisons:
        totals = c["totals"]
        said = (
            f"{c['variant']} vs {c['control']}: {c['personas_changed']} of {c['personas']} personas changed "
            f"behaviour in at least one of their {c['pairs']} paired runs. Purchase: {totals['purchase']['gained']} "
            f"runs bought on {c['variant']} only, {totals['purchase']['lost']} on {c['control']} only. Leave: "
            f"{totals['leave']['gained']} left on {c['variant']} only, {totals['leave']['lost']} on "
            f"{c['control']} only."
        )
        if c.get("unpaired"):
            said += f" {c['unpaired']} runs had no partner on {c['variant']} and are not counted."
        parts.append(Html(f"<h3>{esc(c['variant'])} vs {esc(c['control'])}</h3>"))
        parts.append(paragraph(said))
        listed = c.get("listed") or []
        if not listed:
            parts.append(paragraph("No persona changed behaviour.", muted=True))
            continue
        drawn = listed[:FLIPS_CHARTED]
        labels = [persona_label(cards.get(row["persona_id"]), row["persona_id"], short=True) for row in drawn]
        series = {
            outcome: [100 * (row[outcome]["variant"] - row[outcome]["control"]) / row["instances"] for row in drawn]
            for outcome in ("purchase", "leave")
        }
        hover = {
            outcome: [f"({_flip_text(row[outcome], row['instances'])} runs)" for row in drawn]
            for outcome in ("purchase", "leave")
        }
        more = f" The {len(drawn)} personas with the most flips." if len(listed) > len(drawn) else ""
        parts.append(
            charts.diverging_bars(
                f"flips-{c['variant']}",
                f"Personas who changed behaviour, {c['variant']} vs {c['control']}",
                f"Per persona: the share of its runs that bought (or left) on {c['variant']} minus on {c['control']}, "
                "in "
                f"points.{more}",
                labels,
                series,
                hover,
            )
        )
        rows = [
            [
                persona_link(cards, row["persona_id"]),
                row["instances"],
                _flip_text(row["purchase"], row["instances"]),
                _flip_text(row["leave"], row["instances"]),
            ]
            for row in listed
        ]
        parts.append(
            Html(
                f"<details><summary>All {len(listed)} personas who changed"
                + (
                    f" (of {c['personas_changed']}; the results list the first {len(listed)})"
                    if c["personas_changed"] > len(listed)
                    else ""
                )
                + "</summary>"
                + table(
                    [
                        "persona",
                        "paired runs",
                        f"bought: {c['control']} → {c['variant']}",
                        f"left: {c['control']} → {c['variant']}",
                    ],
                    rows,
                    numeric=(1,),
                )
                + "</details>"
            )
        )
    return [section("Which personas changed behaviour", *parts, anchor="flips")]


def _paths(paths: dict) -> list[Html]:
    """A Sankey per variant: step 1, step 2, ... and how runs ended; only when some run took more than one step."""
    if not any(row["steps"] > 1 for rows in paths.values() for row in rows):
        return []
    figures = []
    for variant, rows in paths.items():
        if not rows:
            continue
        nodes, column, links = path_flows(rows)
        figures.append(
            charts.sankey(
                f"paths-{variant}",
                f"Paths on {variant}",
                "Steps in order (pages of the sequence, or actions on a live site), ending in "
                "how each run ended; a link's width is the number of twin runs.",
                nodes,
                links,
                column=column,
            )
        )
    return [section("How far twins went", Html(f"<div class='charts'>{''.join(figures)}</div>"))]


def path_flows(rows: list[dict]) -> tuple[list[str], list[int], list[tuple[int, int, int]]]:
    """Sankey nodes (step 1..k, then how runs ended), their columns, and one link per transition: step k -> step k+1
    for the runs that went on, step k -> bought/left/ended for those that ended there."""
    flows: Counter[tuple[str, str]] = Counter()
    for row in rows:
        nodes = [f"step {k}" for k in range(1, row["steps"] + 1)] + [ENDED.get(row["ended"], row["ended"])]
        for link in pairwise(nodes):
            flows[link] += row["twins"]
    longest = max(row["steps"] for row in rows)
    ended = {ENDED.get(row["ended"], row["ended"]) for row in rows}
    ends = [name for name in ENDED.values() if name in ended] + sorted(ended - set(ENDED.values()))
    names = [f"step {k}" for k in range(1, longest + 1)] + ends
    index = {name: i for i, name in enumerate(names)}
    column = [min(i, longest) for i in range(len(names))]
    links = sorted((index[s], index[t], n) for (s, t), n in flows.items())
    return names, column, links


def _first_actions(analysis: dict) -> list[Html]:
    variants = analysis["variants"]
    names = list(variants)
    figures = []
    for key, title in (("action_type", "First action type"), ("click_type", "Click type of first clicks")):
        categories: list[str] = []
        for v in variants.values():
            categories += [c for c in ((v.get(key) or {}).get("counts") or {}) if c not in categories]
        stacks = {c: [((variants[n].get(key) or {}).get("counts") or {}).get(c, 0) for n in names] for c in categories}
        stacks = {c: counts for c, counts in stacks.items() if any(counts)}
        if stacks:
            figures.append(
                charts.stacked_shares(
                    key.replace("_", "-") + "s",
                    title,
                    f"Share of each variant's {'samples' if key == 'action_type' else 'first clicks'}.",
                    names,
                    stacks,
                )
            )
    parts: list[object] = [Html(f"<div class='charts'>{''.join(figures)}</div>")]
    rows = [
        [name, e.get("element", ""), e.get("count", 0), _pct(e.get("share"))]
        for name, v in variants.items()
        for e in v.get("top_elements") or []
    ]
    if rows:
        parts += [
            Html("<h3>Elements acted on first</h3>"),
            table(["variant", "element", "count", "share"], rows, numeric=(2, 3)),
        ]
    return [section("What twins did first", *parts)]


def _segments(analysis: dict, indistinguishable: bool) -> list[Html]:
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


def _speakers(quote: dict, cards: dict) -> Html:
    ids = quote.get("persona_ids") or []
    if not ids:
        return Html("")
    named = ", ".join(persona_link(cards, pid) for pid in ids)
    times = quote.get("times", len(ids))
    return Html(f"<span class='who'>{named}" + (f"; said {times} times" if times > 1 else "") + "</span>")


def _themes(themes: dict, cards: dict) -> list[Html]:
    variants = themes.get("variants") or {}
    if not variants:
        return []
    parts: list[object] = [
        paragraph(
            "Rationales clustered by meaning within each variant and outcome; each theme is labelled by its most "
            "central "
            "rationale, with its most distinctive words, and quoted with the personas who said it.",
            muted=True,
        )
    ]
    for variant, groups in variants.items():
        parts.append(Html(f"<h3>{esc(variant)}</h3>"))
        for group, summary in groups.items():
            theme_list = summary.get("themes") or []
            if not theme_list:
                continue
            parts.append(
                Html(
                    f"<h4>{esc(GROUP_TITLES.get(group, group))}: {summary.get('n_with_rationale', 0)} "
                    f"rationales, {len(theme_list)} theme{'s' if len(theme_list) != 1 else ''}</h4>"
                )
            )
            for theme in theme_list:
                words = ", ".join(theme.get("keywords") or [])
                quotes = theme.get("quotes") or [{"text": q} for q in theme.get("representatives") or []]
                quoted = "".join(f"<blockquote>{esc(q['text'])}{_speakers(q, cards)}</blockquote>" for q in quotes)
                parts.append(
                    Html(
                        f"<div class='theme'><strong>{esc(theme.get('label', ''))}</strong> "
                        f"<span class='muted'>({theme.get('size', 0)}, {_pct(theme.get('share'))}"
                        f"{'; ' + esc(words) if words else ''})</span>{quoted}</div>"
                    )
                )
    return [section("Why twins acted: rationale themes", *parts)]


def _fallback_warning(cost: dict) -> list[Html]:
    if not cost.get("fallbacks") and not cost.get("provider_check"):
        return []
    said = [
        (
            f"{cost.get('fallbacks', 0)} of {cost.get('predictions', '?')} decisions were made by the embedded "
            f"brain, not the requested {cost.get('brain', '?')} brain (a failed or invalid call falls back)."
        )
    ]
    if cost.get("provider_check"):
        said.append(f"The provider failed its probe call before the run: {cost['provider_check']}")
    return [notice("Fallbacks", paragraph(" ".join(said)), kind="warning")]


def _visibility_notice(seen: dict) -> list[Html]:
    """Said first, before any p-value: variants the twins could not tell apart cannot differ but by noise."""
    if seen.get("distinguishable") is False:
        return [
            notice(
                "The twins could not see the difference",
                paragraph(
                    f"{seen['note']}. Every comparison below shows noise, not an effect of the change: "
                    "rows with p = 1.000 are collapsed. To test this change, make it visible to the "
                    f"{seen.get('brain', 'chosen')} brain (what it reads of a page: see Methods) or use "
                    "another brain."
                ),
                kind="warning",
            )
        ]
    if seen.get("distinguishable") is None and seen.get("note"):
        return [notice("What the twins could see", paragraph(f"Not checked before the run: {seen['note']}."))]
    if seen.get("pages_differing"):
        pages = "; ".join(
            f"{name}: page {', '.join(str(p) for p in numbers)}" for name, numbers in seen["pages_differing"].items()
        )
        return [notice("What the twins could see", paragraph(f"{seen['note']} ({pages})."))]
    return []


def _cost(cost: dict) -> list[Html]:
    rows = [
        [k.replace("_", " "), f"{v:.4f}" if isinstance(v, float) else v]
        for k, v in cost.items()
        if isinstance(v, (int, float, str)) and not isinstance(v, bool)
    ]
    return [section("Cost", table(["", "value"], rows, numeric=(1,)))] if rows else []


def _methods(analysis: dict) -> Html:
    settings = analysis.get("settings") or {}
    correction = analysis.get("correction") or {}
    level = settings.get("confidence_level", 0.95)
    return methods(
        f"Each twin (a persona, instanced with seeded sampling) saw each variant; the first variant is the control. "
        f"Rates carry {level:.0%} percentile bootstrap intervals ({settings.get('n_bootstrap', 'n/a')} resamples, "
        f"seed {settings.get('seed', 'n/a')}). When every (persona, instance) appears once in both variants the "
        f"comparison is paired: McNemar's test on the discordant pairs (exact binomial below "
        f"{settings.get('exact_mcnemar_below', 25)} discordant pairs) and a paired bootstrap of the difference. "
        f"Otherwise a two-proportion z-test, or Fisher's exact test when an expected cell count is below "
        f"{settings.get('min_expected_count', 5)}, and an independent bootstrap.",
        "Effect sizes: the difference in percentage points (read this first), Cohen's h (about 0.2 small, 0.5 medium, "
        "0.8 large) and the odds ratio. Paired, the odds ratio is the runs that did it on the variant only over those "
        "that did it on the control only (0.5 added to both when one is zero), so a handful of flips one way and none "
        "the other gives a ratio of 10 or more for a change of a few points: it is shown with those counts. Unpaired, "
        "it multiplies odds, not rates: from 0.1% to 0.9% is an odds ratio near 9 for under one point, so on rare "
        "outcomes it is shown with the base rates.",
        f"Action-type and click-type distributions: chi-square test of the variant-by-category table with Cramér's V. "
        f"Segment buckets with fewer than {settings.get('min_segment_size', 10)} samples in a variant are skipped. All "
        f"p-values are corrected together ({correction.get('method', 'n/a')}); tests with p = 1.000 are collapsed.",
        "Flips pair each twin instance's runs on the control and a variant (same persona, same seed). Paths count "
        "runs by the number of steps they took and how they ended. What the twins could see compares what the "
        "chosen brain reads of each page (the embedded brain: page facts, title and the candidates' names, kinds, "
        "click types and texts; an LLM: its prompt's page block): equal input on every page means the twins cannot "
        "tell the variants apart. Quotes name up to three personas who gave that rationale.",
        "Twins are simulations calibrated on real shoppers, not shoppers: a significant difference says the twins "
        "differ, and is a hypothesis to test with people.",
    )
