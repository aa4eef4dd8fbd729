"""The HTML page of an A/B experiment: whether the twins could see the difference, what each variant did, which
differences hold up after correction (the difference in points first), which personas changed behaviour, how far
twins went, the same within segments, why twins acted (rationale themes with who said them), who the twins are,
and how it was measured.

Built with the report kit (agent/reporting): one self-contained file, charts inline, every text escaped
(rationales and element names come from models and web pages). Each chart sits in a <figure data-chart=...>.
"""

from __future__ import annotations

from agent.reporting import charts
from agent.reporting.experiment_behaviour import (
    first_actions_section,
    flips_section,
    paths_section,
)
from agent.reporting.experiment_comparisons import (
    comparisons_section,
    num,
    outcome_label,
    rate_with_ci,
    segments_section,
)
from agent.reporting.kit import (
    Html,
    esc,
    methods,
    notice,
    page,
    paragraph,
    pct,
    section,
    table,
)
from agent.reporting.persona_cards import persona_cards_section, persona_link

CITATION = (
    'Click types follow OPeRA: Wang et al. 2025, "OPeRA: A Dataset of Observation, Persona, Rationale, and Action '
    'for Evaluating LLMs on Human Online Shopping Behavior Simulation", arXiv 2506.05606, CC-BY-4.0.'
)
GROUP_TITLES = {"bought": "bought", "left": "left without buying", "other": "neither (still browsing)"}


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
        body += _outcomes(analysis) + comparisons_section(analysis, indistinguishable)
        body += flips_section(results.get("flips") or {}, cards) + paths_section(results.get("paths") or {})
        body += first_actions_section(analysis) + segments_section(analysis, indistinguishable)
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


# -- sections --------------------------------------------------------------------------------------------------


def _variant_names(spec: dict, analysis: dict) -> list[str]:
    if analysis.get("variants"):
        return list(analysis["variants"])
    return [v.get("name", "?") if isinstance(v, dict) else str(v) for v in spec.get("variants") or []]


def _summary(spec: dict, analysis: dict, status: str | None) -> list[Html]:
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
    rows = [[name, v["judged"], v["reached"], pct(v["share"])] for name, v in task["variants"].items()]
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
        + [rate_with_ci((v.get("rates") or {}).get(o)) for o in outcomes]
        + [num(v.get("mean_steps"), 1)]
        for name, v in variants.items()
    ]
    level = (analysis.get("settings") or {}).get("confidence_level", 0.95)
    parts: list[object] = [
        paragraph(f"Rates with {level:.0%} bootstrap confidence intervals.", muted=True),
        table(
            ["variant", "samples", "personas"] + [f"{outcome_label(o)} rate" for o in outcomes] + ["mean steps"],
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
                [outcome_label(o) for o in outcomes],
                series,
            )
        )
    return [section("Outcomes per variant", *parts)]


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
                        f"<span class='muted'>({theme.get('size', 0)}, {pct(theme.get('share'))}"
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
