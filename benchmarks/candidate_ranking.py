"""The candidate ranker (agent/candidate_ranking.py, MindAct's first stage with the shipped MiniLM): recall@10 and
recall@50 on pages whose targets were annotated before the ranker existed, and its time on ~100 KB and ~600 KB pages.
Writes benchmarks/results/candidate_ranking.json. Run: .venv/bin/python benchmarks/candidate_ranking.py

Targets (the team's own annotation, not a published benchmark):
- corpus/: real saved shop pages; manifest.json's `key_elements` (element -> CSS selector), written by the twinsim
  team by reading each raw page before this ranker was built. Each key element is one target; its query is the
  key's own name in words ("add_to_cart" -> "add to cart"), taken mechanically, no task written for it. A raw page
  goes through the generic simplifier with a source map; a candidate hits the target when the raw element it was
  made from is the selected element, inside it, or one of its three nearest ancestors. Targets no candidate hits
  are counted apart (the simplifier left them out, or they are text, not something to act on).
- tests/fixtures/opera_small/: 5 sessions in OPeRA's format (pages and actions written by the team in OPeRA's
  naming patterns for the tests, by three real OPeRA users; not recorded OPeRA pages, which are not reachable
  here, and nothing of OPeRA's test split). The recorded action's element is the target, the query the three
  previous actions (there is no task); these pages are small (a few dozen candidates), so recall@10 is easy there.
Timing: the ~100 KB sample results page and the ~600 KB page benchmarks/observation_speed.py builds from it;
"cold" computes the page's element vectors, "warm" ranks a second query on the same page (vectors kept).
"""

from __future__ import annotations

import json
import os
import time

from _common import REPO, write_result
from observation_speed import page_600kb
from selectolax.lexbor import LexborHTMLParser

from agent.actions import parse_action
from agent.candidate_ranking import ENCODERS, forget_pages, rank_candidates, recall_at
from agent.llm.prompts import action_text
from agent.page.parse import parse_page
from agent.page.simplifier import simplify_html
from agent.sample_pages import sample_page

MARK = "data-bench-node"
ANCESTORS = 3
KS = (10, 50)


def _marked(raw: str) -> tuple[LexborHTMLParser, str]:
    tree = LexborHTMLParser(raw)
    for i, node in enumerate(tree.css("*")):
        node.attrs[MARK] = f"n{i}"
    return tree, tree.html


def _target_marks(tree: LexborHTMLParser, selector: str) -> set[str]:
    marks: set[str] = set()
    for node in tree.css(selector):
        family = [node, *node.css("*")]
        parent = node.parent
        for _ in range(ANCESTORS):
            if parent is None:
                break
            family.append(parent)
            parent = parent.parent
        marks.update(n.attributes.get(MARK) for n in family if n.attributes.get(MARK))
    return marks


def corpus_targets() -> list[dict]:
    """One record per key element of each corpus page: the query, the page and which candidates hit it."""
    manifest = json.loads((REPO / "corpus" / "manifest.json").read_text())
    records = []
    for entry in manifest:
        raw = (REPO / "corpus" / entry["file"]).read_text(errors="replace")
        tree, marked = _marked(raw)
        simplified = simplify_html(marked, None, source_attribute=MARK)
        observation = parse_page(simplified.html)
        marks = [simplified.sources.get(c.name) for c in observation.candidates]
        for key, selector in entry["ground_truth"]["key_elements"].items():
            wanted = _target_marks(tree, selector)
            hits = {i for i, mark in enumerate(marks) if mark in wanted}
            records.append(
                {
                    "source": "corpus",
                    "page": entry["file"],
                    "target": key,
                    "query": key.replace("_", " "),
                    "observation": observation,
                    "hits": hits,
                }
            )
    return records


def opera_small_targets() -> list[dict]:
    rows = [json.loads(line) for line in (REPO / "tests/fixtures/opera_small/actions.jsonl").read_text().splitlines()]
    records, history = [], {}
    for row in rows:
        past = history.setdefault(row["session_id"], [])
        action = parse_action(
            {"type": row["action_type"], "name": row.get("semantic_id"), "text": row.get("input_text")}
            if row["action_type"] == "input"
            else {"type": row["action_type"], **({"name": row["semantic_id"]} if row.get("semantic_id") else {})}
        )
        if action.type != "terminate" and row.get("simplified_html"):
            observation = parse_page(row["simplified_html"], url=row.get("url"))
            query = " ".join(action_text(a) for a in past[-3:]) or observation.title
            hits = {i for i, c in enumerate(observation.candidates) if c.name == action.name}
            records.append(
                {
                    "source": "opera_small",
                    "page": row["session_id"][:8],
                    "target": action.name,
                    "query": query,
                    "observation": observation,
                    "hits": hits,
                }
            )
        past.append(action)
    return records


def recall(records: list[dict], encoder: str) -> dict:
    reachable = [r for r in records if r["hits"]]
    found = dict.fromkeys(KS, 0)
    per_target = []
    for record in reachable:
        ranking = rank_candidates(record["observation"], record["query"], encoder)
        best = min(ranking.index(i) for i in record["hits"]) + 1
        per_target.append(
            {
                "page": record["page"],
                "target": record["target"],
                "query": record["query"],
                "candidates": len(record["observation"].candidates),
                "best_rank": best,
            }
        )
        for k in KS:
            found[k] += recall_at(ranking, record["hits"], k)
    out = {
        "targets": len(records),
        "reachable": len(reachable),
        "unreachable": sorted(f"{r['page']}: {r['target']}" for r in records if not r["hits"]),
    }
    out.update({f"recall_at_{k}": round(found[k] / len(reachable), 4) if reachable else None for k in KS})
    out["per_target"] = per_target
    return out


def timing(html: str, label: str) -> dict:
    observation = parse_page(html)
    out = {"page": label, "bytes": len(html.encode()), "candidates": len(observation.candidates)}
    for encoder in ENCODERS:
        forget_pages()
        started = time.perf_counter()
        rank_candidates(observation, "buy the Samsung 25W USB-C cable in white", encoder)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        rank_candidates(observation, "get the Syncwire extra long 10ft charger cord", encoder)
        out[encoder] = {"cold_ms": round(cold * 1000, 1), "warm_ms": round((time.perf_counter() - started) * 1000, 1)}
    return out


if __name__ == "__main__":
    load_before = os.getloadavg()
    from personas.embedder import get_embedder

    get_embedder()  # the model is loaded once per process; not part of a ranking's time
    records = {"corpus": corpus_targets(), "opera_small": opera_small_targets()}
    results = {name: {encoder: recall(rs, encoder) for encoder in ENCODERS} for name, rs in records.items()}
    times = [
        timing(sample_page("search_results.html"), "sample search results (~100 KB)"),
        timing(page_600kb(), "sample results grid repeated to ~600 KB"),
    ]
    write_result(
        "candidate_ranking",
        {
            "annotation": "the twinsim team's own: corpus/manifest.json key_elements (by selector, on real saved "
            "pages) "
            "and tests/fixtures/opera_small (team-written pages in OPeRA's format); not a published benchmark",
            "default_encoder": "hybrid",
            "ks": list(KS),
            "recall": results,
            "timing": times,
            "load_average_1m": {"before": round(load_before[0], 2), "after": round(os.getloadavg()[0], 2)},
        },
    )
