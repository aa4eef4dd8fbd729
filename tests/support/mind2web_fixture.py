"""A small Multimodal-Mind2Web-format dataset written for the tests from the documented layout
(../shared/data/mind2web/README.md; Zheng et al. 2024, arXiv 2401.01614; Mind2Web, Deng et al. 2023).

Not the real data (it is not reachable here): four tasks on hand-written pages, all three operations, candidates
with bounding boxes, and one step whose `pos_candidates` is empty (its element did not survive cleaning). Written
as the released parquet holds it (operation and each candidate as JSON strings, a screenshot and raw_html column
that the reader must skip, files named `<split>-00000-of-00001.parquet`) and as JSONL of the same rows (operation
and candidates as objects, attributes still JSON strings).

`SCRIPT` is what a scripted LLM answers at each step, and `EXPECTED` the metrics that gives, computed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

# node id -> (tag, attributes, inner text, x, y)
Element = tuple[str, dict, str, int, int]


def _page(title: str, elements: dict[str, Element]) -> str:
    parts = []
    for node_id, (tag, attributes, text, *_box) in elements.items():
        attrs = "".join(f' {k}="{v}"' for k, v in attributes.items())
        if tag == "select":
            options = "".join(
                f'<option backend_node_id="{node_id}{i}">{o}</option>' for i, o in enumerate(text.split("|"))
            )
            parts.append(f'<select backend_node_id="{node_id}"{attrs}>{options}</select>')
        elif tag == "input":
            parts.append(f'<input backend_node_id="{node_id}"{attrs}>')
        else:
            parts.append(
                f'<{tag} backend_node_id="{node_id}"{attrs}><text backend_node_id="{node_id}9">{text}</text></{tag}>'
            )
    return (
        f'<html backend_node_id="1"><head backend_node_id="2"><title backend_node_id="3">{title}</title></head>'
        f'<body backend_node_id="4"><div backend_node_id="5"><p backend_node_id="6">{title}</p>{"".join(parts)}'
        "</div></body></html>"
    )


def _candidate(node_id: str, element: Element, target: bool) -> dict:
    tag, attributes, _text, x, y = element
    rect = f"{x},{y}.5,{120 + len(node_id)},32"
    return {
        "tag": tag,
        "is_original_target": target,
        "is_top_level_target": target,
        "backend_node_id": node_id,
        "attributes": json.dumps({"backend_node_id": node_id, "bounding_box_rect": rect, **attributes}),
    }


FLIGHT = {
    "101": ("input", {"type": "text", "aria-label": "From"}, "", 40, 200),
    "102": ("input", {"type": "text", "placeholder": "To"}, "", 200, 200),
    "103": ("select", {"aria-label": "Trip type"}, "Round trip|One-way", 360, 200),
    "104": ("button", {"type": "submit"}, "Find flights", 520, 200),
    "105": ("a", {"href": "/deals"}, "Deals", 40, 40),
    "106": ("a", {"href": "/signin"}, "Sign in", 900, 40),
    "107": ("input", {"type": "date", "aria-label": "Depart"}, "", 40, 260),
}
SHOP_HOME = {
    "201": ("input", {"type": "text", "aria-label": "Search Amazon"}, "", 300, 20),
    "202": ("input", {"type": "submit", "value": "Go"}, "", 700, 20),
    "203": ("a", {"href": "/deals"}, "Today's Deals", 40, 60),
    "204": ("a", {"href": "/cart"}, "Cart", 900, 20),
}
SHOP_RESULTS = {
    **SHOP_HOME,
    "205": ("select", {"aria-label": "Sort by"}, "Featured|Price: Low to High|Price: High to Low", 800, 90),
    "206": ("a", {"href": "/dp/aroma"}, "Aroma 3-Cup Rice Cooker", 300, 200),
    "207": ("a", {"href": "/dp/zoji"}, "Zojirushi 5.5-Cup Rice Cooker", 300, 400),
    "208": ("a", {"href": "/s?page=2"}, "Next page", 300, 900),
}
HELP_HOME = {
    "301": ("a", {"href": "/help"}, "Help", 40, 20),
    "302": ("a", {"href": "/ad"}, "Weekly Ad", 120, 20),
    "303": ("input", {"type": "search", "aria-label": "Search"}, "", 300, 20),
    "304": ("a", {"href": "/registry"}, "Registry", 200, 20),
}
HELP_PAGE = {
    "311": ("a", {"href": "/help/returns"}, "Returns &amp; Exchanges", 40, 200),
    "312": ("a", {"href": "/help/track"}, "Track an order", 40, 240),
    "313": ("a", {"href": "/help/contact"}, "Contact us", 40, 280),
}
CARS = {
    "401": ("input", {"type": "text", "aria-label": "Pick-up location"}, "", 40, 200),
    "402": ("input", {"type": "text", "aria-label": "Pick-up date"}, "", 240, 200),
    "403": ("input", {"type": "text", "aria-label": "Drop-off date"}, "", 440, 200),
    "404": ("button", {"type": "submit"}, "Search cars", 640, 200),
    "405": ("a", {"href": "/deals"}, "Deals", 40, 40),
}

# split, annotation id, website, domain, subdomain, task, steps: (page title, elements, positive ids, op, value, repr)
TASKS = [
    (
        "test_task",
        "t1-flight",
        "united",
        "Travel",
        "Airlines",
        "Find one-way flights from Mumbai to New York on April 21",
        [
            ("United Airlines", FLIGHT, ["101"], "TYPE", "Mumbai", "[textbox]  From -> TYPE: Mumbai"),
            ("United Airlines", FLIGHT, ["102"], "TYPE", "New York", "[textbox]  To -> TYPE: New York"),
            ("United Airlines", FLIGHT, ["103"], "SELECT", "One-way", "[combobox]  Trip type -> SELECT: One-way"),
            ("United Airlines", FLIGHT, ["104"], "CLICK", "", "[button]  Find flights -> CLICK"),
        ],
    ),
    (
        "test_task",
        "t2-rice",
        "amazon",
        "Shopping",
        "Kitchen",
        "Buy a 3-cup rice cooker under $100",
        [
            (
                "Amazon.com",
                SHOP_HOME,
                ["201"],
                "TYPE",
                "3-cup rice cooker",
                "[searchbox]  Search Amazon -> TYPE: 3-cup rice cooker",
            ),
            ("Amazon.com", SHOP_HOME, ["202"], "CLICK", "", "[button]  Go -> CLICK"),
            (
                "Amazon.com : rice cooker",
                SHOP_RESULTS,
                ["205"],
                "SELECT",
                "Price: Low to High",
                "[combobox]  Sort by -> SELECT: Price: Low to High",
            ),
            (
                "Amazon.com : rice cooker",
                {k: v for k, v in SHOP_RESULTS.items() if k != "206"},
                [],
                "CLICK",
                "",
                "[link]  Aroma 3-Cup Rice Cooker -> CLICK",
            ),
        ],
    ),
    (
        "test_website",
        "t3-returns",
        "target",
        "Shopping",
        "Department",
        "Find the return policy",
        [
            ("Target", HELP_HOME, ["301"], "CLICK", "", "[link]  Help -> CLICK"),
            ("Target Help", HELP_PAGE, ["311"], "CLICK", "", "[link]  Returns & Exchanges -> CLICK"),
        ],
    ),
    (
        "test_domain",
        "t4-car",
        "budget",
        "Travel",
        "Car rental",
        "Rent a car in Boston from April 5 to April 8",
        [
            ("Budget Car Rental", CARS, ["401"], "TYPE", "Boston", "[textbox]  Pick-up location -> TYPE: Boston"),
            ("Budget Car Rental", CARS, ["404"], "CLICK", "", "[button]  Search cars -> CLICK"),
        ],
    ),
]

# What the scripted LLM does at each step of each task: ("input", node, text), ("click", node) or ("terminate",).
SCRIPT = {
    "Find one-way flights from Mumbai to New York on April 21": [
        ("input", "101", "Mumbai"),
        ("input", "102", "New York City"),
        ("input", "103", "One-way"),
        ("click", "105"),
    ],
    "Buy a 3-cup rice cooker under $100": [
        ("input", "201", "3-cup rice cooker"),
        ("click", "202"),
        ("click", "205"),
        ("click", "207"),
    ],
    "Find the return policy": [("click", "301"), ("click", "311")],
    "Rent a car in Boston from April 5 to April 8": [("input", "401", "Boston"), ("terminate",)],
}
# By hand, per step (element right, operation F1, step success):
#   t1: (1, 1, 1), (1, F, 0) with F = F1({TYPE New York City}, {TYPE New York}) = 2*(3/4*1)/(3/4+1) = 6/7,
#       (1, 1, 1), (0, 1, 0)  -> element 3/4, op F1 (3 + 6/7)/4, step SR 2/4, task not done
#   t2: (1, 1, 1), (1, 1, 1), (1, 0, 0) [CLICK vs SELECT Price: Low to High], (0, 0, 0) [no positive]
#       -> element 3/4, op F1 2/4, step SR 2/4
#   t3: (1, 1, 1), (1, 1, 1) -> all 1, task done
#   t4: (1, 1, 1), (0, 0, 0) [left: no operation] -> element 1/2, op F1 1/2, step SR 1/2
_F = 6 / 7
EXPECTED = {
    "test_task": {
        "n_steps": 8,
        "n_tasks": 2,
        "steps_without_positive": 1,
        "element_accuracy": 0.75,
        "operation_f1": ((3 + _F) / 4 + 0.5) / 2,
        "step_success_rate": 0.5,
        "task_success_rate": 0.0,
        "micro": {"element_accuracy": 6 / 8, "operation_f1": (5 + _F) / 8, "step_success_rate": 4 / 8},
    },
    "test_website": {
        "n_steps": 2,
        "n_tasks": 1,
        "steps_without_positive": 0,
        "element_accuracy": 1.0,
        "operation_f1": 1.0,
        "step_success_rate": 1.0,
        "task_success_rate": 1.0,
        "micro": {"element_accuracy": 1.0, "operation_f1": 1.0, "step_success_rate": 1.0},
    },
    "test_domain": {
        "n_steps": 2,
        "n_tasks": 1,
        "steps_without_positive": 0,
        "element_accuracy": 0.5,
        "operation_f1": 0.5,
        "step_success_rate": 0.5,
        "task_success_rate": 0.0,
        "micro": {"element_accuracy": 0.5, "operation_f1": 0.5, "step_success_rate": 0.5},
    },
}


def rows() -> list[tuple[str, dict]]:
    """(split, row) for every step, the row in the documented layout with dicts (the JSONL form)."""
    out = []
    for split, annotation_id, website, domain, subdomain, task, steps in TASKS:
        reprs = [step[5] for step in steps]
        for index, (title, elements, positive, op, value, text) in enumerate(steps):
            out.append(
                (
                    split,
                    {
                        "annotation_id": annotation_id,
                        "action_uid": f"{annotation_id}-{index}",
                        "website": website,
                        "domain": domain,
                        "subdomain": subdomain,
                        "confirmed_task": task,
                        "raw_html": "<html><body>not read</body></html>",
                        "cleaned_html": _page(title, elements),
                        "operation": {"original_op": op, "value": value, "op": op},
                        "pos_candidates": [_candidate(n, elements[n], True) for n in positive],
                        "neg_candidates": [_candidate(n, e, False) for n, e in elements.items() if n not in positive],
                        "action_reprs": reprs,
                        "target_action_index": str(index),
                        "target_action_reprs": text,
                    },
                )
            )
    return out


def write_jsonl(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for split in ("test_task", "test_website", "test_domain"):
        path = folder / f"{split}-00000-of-00001.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for s, row in rows() if s == split))
        paths.append(path)
    return paths


def write_parquet(folder: Path) -> list[Path]:
    """As the released files: operation and candidates as JSON strings, plus a screenshot column nobody reads."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for split in ("test_task", "test_website", "test_domain"):
        records = []
        for s, row in rows():
            if s != split:
                continue
            records.append(
                {
                    **row,
                    "operation": json.dumps(row["operation"]),
                    "pos_candidates": [json.dumps(c) for c in row["pos_candidates"]],
                    "neg_candidates": [json.dumps(c) for c in row["neg_candidates"]],
                    "screenshot": {"bytes": b"\x89PNG\r\n\x1a\n", "path": None},
                }
            )
        path = folder / f"{split}-00000-of-00001.parquet"
        pq.write_table(pa.Table.from_pylist(records), path)
        paths.append(path)
    return paths
