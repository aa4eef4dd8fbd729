"""The experiment page's behaviour sections: which personas changed behaviour between variants (flips), how far
twins went (a Sankey of steps per variant) and what they did first."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from agent.reporting import charts
from agent.reporting.kit import Html, esc, paragraph, pct, section, table
from agent.reporting.persona_cards import persona_label, persona_link

ENDED = {"bought": "bought", "left": "left", "other": "ended (neither)"}
FLIPS_CHARTED = 30  # personas drawn in a flips chart (the table lists all the results carry)


def _flip_text(counts: dict, instances: int) -> str:
    return f"{counts['control']} → {counts['variant']} of {instances}"


def flips_section(flips: dict, cards: dict) -> list[Html]:
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


def paths_section(paths: dict) -> list[Html]:
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


def first_actions_section(analysis: dict) -> list[Html]:
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
        [name, e.get("element", ""), e.get("count", 0), pct(e.get("share"))]
        for name, v in variants.items()
        for e in v.get("top_elements") or []
    ]
    if rows:
        parts += [
            Html("<h3>Elements acted on first</h3>"),
            table(["variant", "element", "count", "share"], rows, numeric=(2, 3)),
        ]
    return [section("What twins did first", *parts)]
