"""The HTML page of a live simulation: the funnel with its intervals, the paths twins took, where they left and why,
who the twins are, and every twin's steps with the screenshot and the element it acted on marked.

Built with the report kit (agent/reporting): one file, charts inline, every text escaped.
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
    pct,
    section,
    table,
)
from agent.reporting.persona_cards import persona_cards_section, persona_link

SINKS = {
    "left": "left",
    "purchased": "bought",
    "task_reached": "task reached",
    "max_steps": "step limit",
    "error": "error",
}
NOT_OPENED = "start page not opened"


def _action(step: dict) -> Html:
    action = step["action"]
    if action["type"] == "terminate":
        return Html("leave")
    if action["type"] == "input":
        return Html(f"type <q>{esc(action['text'])}</q> into <code>{esc(action['name'])}</code>")
    return Html(f"click <code>{esc(action['name'])}</code>")


def page_path(trace: dict) -> list[str]:
    """The page types a twin was on, in order: one per step, and the page it ended on when its last action led
    somewhere (bought, ran out of steps, reached the task)."""
    pages = [step["page_type"] for step in trace["steps"]]
    if trace["outcome"] in ("purchased", "max_steps", "task_reached") and trace.get("final_page_type"):
        pages.append(trace["final_page_type"])
    return pages


def path_flows(traces: list[dict]) -> tuple[list[tuple[int, str]], list[tuple[int, int, int]]]:
    """Sankey nodes, (step, page type) then (0, how runs ended), and one link per distinct transition with the
    number of twins that took it, in order of first appearance."""
    counts: Counter[tuple[tuple[int, str], tuple[int, str]]] = Counter()
    for trace in traces:
        nodes = list(enumerate(page_path(trace), start=1)) or [(1, NOT_OPENED)]
        nodes.append((0, SINKS.get(trace["outcome"], trace["outcome"])))
        counts.update(pairwise(nodes))
    names: list[tuple[int, str]] = []
    for source, target in counts:
        names += [n for n in (source, target) if n not in names]
    index = {name: i for i, name in enumerate(names)}
    return names, [(index[s], index[t], n) for (s, t), n in counts.items()]


def _funnel(funnel: dict) -> list[Html]:
    rows = funnel["reached"]
    total = funnel["twins"]
    intervals = [(r["ci_low"], r["ci_high"]) if r.get("ci_low") is not None else (r["share"], r["share"]) for r in rows]
    chart = charts.funnel(
        "funnel",
        "Twins reaching each stage",
        "Bars: share of twins; whiskers: 95% Wilson intervals (wide with few twins).",
        [r["stage"] for r in rows],
        [r["twins"] for r in rows],
        total,
        intervals,
    )
    listing = table(
        ["stage", "twins", "share", "95% interval"],
        [
            [
                r["stage"],
                r["twins"],
                pct(r["share"], 0),
                f"{pct(lo, 0)} to {pct(hi, 0)}" if r.get("ci_low") is not None else "n/a",
            ]
            for r, (lo, hi) in zip(rows, intervals, strict=True)
        ],
        numeric=(1, 2),
    )
    return [section("Funnel", chart, listing)]


def _paths(traces: list[dict]) -> list[Html]:
    if not traces:
        return []
    nodes, links = path_flows(traces)
    last = max(step for step, _ in nodes)
    chart = charts.sankey(
        "paths",
        "Paths twins took",
        "Page types in step order, from the start page on the left to how each run ended on the "
        "right; a link's width is the number of twins that went that way. Hover for the step and "
        "the count.",
        [name for _, name in nodes],
        links,
        hover=[f"step {step}: {name}" if step else name for step, name in nodes],
        column=[step - 1 if step else last for step, _ in nodes],
    )
    return [section("Paths", chart)]


def _exits(funnel: dict, cards: dict) -> list[Html]:
    rows = [
        [
            persona_link(cards, e["persona_id"]),
            e["outcome"],
            e["furthest_stage"] or "none",
            Html(f"{esc(e['page_type'] or '?')}<br><span class='muted url'>{esc(e['url'] or '')}</span>"),
            Html(f"<a href='#twin-{esc(e['persona_id'])}'>{e['steps']}</a>"),
            e["reason"],
        ]
        for e in funnel["exits"]
    ]
    outcomes = table(["outcome", "twins"], [[k, v] for k, v in sorted(funnel["outcomes"].items())], numeric=(1,))
    failures = (
        table(["failure", "twins"], [[k, v] for k, v in sorted(funnel["failures"].items())], numeric=(1,))
        if funnel["failures"]
        else paragraph("None.")
    )
    return [
        section("Outcomes", outcomes),
        section("Failures", failures),
        section(
            "Where twins left, and why",
            table(
                ["twin", "outcome", "furthest stage", "left on", "steps", "reason"],
                rows,
                numeric=(4,),
                wide_text=(3, 5),
            ),
        ),
    ]


def _mark(step: dict) -> str:
    """An outline over the element acted on, in percentages of the screenshot, so it scales with the image."""
    box, size = step.get("target_box"), step.get("screenshot_size")
    if not box or not size or not size.get("width") or not size.get("height"):
        return ""
    left, top = max(0.0, box["x"]), max(0.0, box["y"])
    right, bottom = min(size["width"], box["x"] + box["width"]), min(size["height"], box["y"] + box["height"])
    if right <= left or bottom <= top:  # not on the screenshot
        return ""
    w, h = size["width"], size["height"]
    return (
        f"<span class='mark' data-box='{left:.0f},{top:.0f},{right - left:.0f},{bottom - top:.0f}' "
        f"style='left:{100 * left / w:.3f}%;top:{100 * top / h:.3f}%;width:{100 * (right - left) / w:.3f}%;"
        f"height:{100 * (bottom - top) / h:.3f}%'></span>"
    )


def _step(step: dict, images: dict[str, str]) -> Html:
    memories = "".join(
        f"<li><span class='muted'>{esc(m['kind'])}:</span> {esc(m['text'][:240])}</li>" for m in step["memories"][:3]
    )
    brain = step["brain"] + (" (fallback)" if step.get("fallback_used") else "") + f", seed {step.get('seed')}"
    facts = [
        ("page", Html(f"{esc(step['title'])}<br><span class='muted'>{esc(step['url'])}</span>")),
        ("action", _action(step)),
    ]
    if step.get("click_type"):
        facts.append(("click type", step["click_type"]))
    facts.append(("why", step["rationale"]))
    if memories:
        facts.append(
            (
                "memories",
                Html(f"<details><summary>{min(3, len(step['memories']))} used</summary><ul>{memories}</ul></details>"),
            )
        )
    facts.append(("brain", brain))
    if step.get("result_url") and step["result_url"] != step["url"]:
        facts.append(("then on", step["result_url"]))
    text = (
        f"<div><h4>Step {step['step']} · {esc(step['page_type'])}</h4><dl>"
        + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
        + "</dl></div>"
    )
    if not step.get("screenshot"):
        return Html(f"<article class='step'>{text}</article>")
    mark = _mark(step)
    caption = (
        "The red box marks the element acted on."
        if mark
        else "No mark: the twin left here."
        if step["action"]["type"] == "terminate"
        else "No mark: the element had no box on the screenshot."
    )
    source = images.get(step["screenshot"], step["screenshot"])
    shot = (
        f"<figure class='shot'><a class='shot-frame' href='{esc(step['screenshot'])}' target='_blank'>"
        f"<img src='{esc(source)}' alt='Step {step['step']}: {esc(step['title'])}'>{mark}</a>"
        f"<figcaption>{esc(caption)} Open the screenshot at full size by clicking it.</figcaption></figure>"
    )
    return Html(f"<article class='step with-shot'>{text}{shot}</article>")


def _twin(trace: dict, cards: dict, images: dict[str, str]) -> Html:
    failure = trace.get("failure")
    furthest = trace["stages"][-1] if trace["stages"] else "none"
    head = (
        f"<h3 id='twin-{esc(trace['persona_id'])}'>{persona_link(cards, trace['persona_id'])}: "
        f"{esc(trace['outcome'])}</h3><p class='muted'>{len(trace['steps'])} steps, furthest stage "
        f"{esc(furthest)}. {esc(trace['reason'])}</p>"
    )
    failure_html = (
        f"<p class='error'>{esc(failure['kind'])} at step {failure['step']}: {esc(failure['message'])}</p>"
        if failure
        else ""
    )
    return Html(
        f"<section class='twin'>{head}{failure_html}{''.join(_step(s, images) for s in trace['steps'])}</section>"
    )


def _task(task: dict | None, cards: dict) -> list[Html]:
    """Who reached the task and after how many actions; nothing when the twins had none."""
    if not task:
        return []
    if task.get("success") is None:
        return [
            section(
                "Task",
                Html(
                    f"<p>Every twin was asked to: <q>{esc(task['goal'])}</q>. It has no success "
                    "criteria, so whether they reached it was not judged.</p>"
                ),
            )
        ]
    share = "n/a" if task.get("share") is None else f"{100 * task['share']:.0f}%"
    criteria = ", ".join(f"{k} {v!r}" for k, v in task["success"].items())
    median = task.get("median_step") if task.get("median_step") is not None else "n/a"
    rows = [
        [persona_link(cards, pid), "yes" if row["reached"] else "no", "" if row.get("step") is None else row["step"]]
        for pid, row in task["per_persona"].items()
    ]
    return [
        section(
            "Task",
            Html(
                f"<p>Every twin was asked to: <q>{esc(task['goal'])}</q> (reached when the page "
                f"meets {esc(criteria)}). {task['reached']} of {task['judged']} twins reached it "
                f"({share}); median step {median}.</p>"
            ),
            table(["twin", "reached", "after actions"], rows, numeric=(2,)),
        )
    ]


def _methods(config: dict) -> Html:
    return methods(
        f"Each twin browsed {config['url']} in its own headless Chromium context (its own cookies and cart), for at "
        f"most {config['max_steps']} steps. At each step the page is read as the browser renders it (elements it does "
        f"not show are left out), simplified into named elements, and the {config['brain']} brain chooses one action "
        "for the persona from the page, the persona's memories and the steps so far; the action is then performed on "
        "the live element. Draws are seeded per (seed, persona, step), so the same seed repeats a run.",
        "A twin reaches a funnel stage when it is on a page of that type (search results, product, cart, checkout) "
        "or makes the click that places the order. Shares carry 95% Wilson score intervals: with a handful of twins "
        "they are wide, and a share is a hint, not a rate.",
        "Paths are the page types each twin was on, in step order, ending in how its run ended; each link counts "
        "the twins that made that transition.",
        "Screenshots (with screenshots on) show the viewport just before the action, after the element acted on was "
        "scrolled into view as a click would; the red box is that element's box. Twins read the page's elements and "
        "text, not the picture: the screenshot shows what a person would have seen.",
        "Twins are simulations calibrated on real shoppers, not shoppers: what they do is a hypothesis to test with "
        "people.",
    )


def _test_details(details: dict | None, cards: dict) -> list[Html]:
    """The checkout fields twins filled with made-up TEST details, said as such, so no reader takes them for a
    person's data; nothing when no twin filled a form."""
    if not details:
        return []
    rows = [
        [
            persona_link(cards, row["persona_id"]),
            row["step"],
            row["label"],
            row.get("kind") or "",
            row["value"] if row.get("value") is not None else "(left empty)",
            row.get("note") or "",
        ]
        for row in details["filled"] + details["left_empty"]
    ]
    return [
        section(
            "Checkout forms: test details",
            notice("Made-up TEST details, not the persons' data", paragraph(details["note"]), kind="warning"),
            table(["twin", "step", "field", "kind", "value entered", "note"], rows, numeric=(1,)),
            anchor="test-details",
        )
    ]


def render_simulation_html(result: dict, images: dict[str, str] | None = None) -> str:
    """`result` is SimulationResult.model_dump(mode='json'); `images` maps a step's screenshot path to a data: URI
    to carry it in the page (agent/simulation/output.py), else the page links the file."""
    images = images or {}
    config, funnel, traces = result["config"], result["funnel"], result["traces"]
    cards = result.get("personas") or {}
    intro = paragraph(
        f"{funnel['twins']} twins, brain {config['brain']}, seed {config['seed']}, at most "
        f"{config['max_steps']} steps each; {result['started_at']}, {result['seconds']} s."
    )
    failed = sum(1 for t in traces if t.get("failure"))
    warnings = (
        [
            notice(
                "Some runs failed",
                paragraph(f"{failed} of {len(traces)} twins' runs ended in a failure; see Failures and their steps."),
                kind="warning",
            )
        ]
        if failed
        else []
    )
    body = [
        Html(f"<h1>Live simulation of {esc(config['url'])}</h1>"),
        intro,
        *warnings,
        *_task(result.get("task"), cards),
        *_funnel(funnel),
        *_paths(traces),
        *_exits(funnel, cards),
        *_test_details(result.get("test_details"), cards),
        persona_cards_section(cards),
        section("Every twin's steps", *(_twin(trace, cards, images) for trace in traces), anchor="steps"),
        _methods(config),
    ]
    if not any(s.get("screenshot") for t in traces for s in t["steps"]):
        body.insert(
            -1, paragraph("No screenshots were taken (run with --screenshots to see each step's page).", muted=True)
        )
    elif not images:
        body.insert(
            -1,
            paragraph(
                "The screenshots are files beside this report (screenshots/), linked rather than "
                "carried in the page: together they are too large for one file.",
                muted=True,
            ),
        )
    return page(f"twinsim live simulation: {config['url']}", body, footer=result["citation"])
