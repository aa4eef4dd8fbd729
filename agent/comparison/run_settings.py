"""What two runs of the same kind were asked to do, setting by setting, and which settings differ.

A difference in outcomes means little until one knows what else differed: the brain, the seed, the personas,
the pages. Each run's spec (experiments) or config (simulations) is read into named settings (inline pages as
their size and a short hash, so the diff stays readable), and the settings are compared one by one.
"""

from __future__ import annotations

import hashlib
import json


def experiment_settings(spec: dict) -> dict:
    """The settings of an experiment's spec (agent/experiments/results.py spec_document) that shape its outcomes."""
    variants = [v for v in spec.get("variants") or [] if isinstance(v, dict)]
    settings = {
        "name": spec.get("name"),
        "brain": spec.get("brain"),
        "model": spec.get("model"),
        "seed": spec.get("seed"),
        "population": spec.get("population"),
        "population size": spec.get("population_size"),
        "samples per persona": spec.get("samples_per_persona"),
        "variants": [v.get("name") for v in variants],
        "history": spec.get("history") or [],
        "task": spec.get("task"),
        "targets": spec.get("targets") or [],
        "segments": spec.get("segments") or [],
    }
    for variant in variants:
        name = variant.get("name")
        if variant.get("live_url"):
            settings[f"variant {name}: live site"] = variant["live_url"]
            settings[f"variant {name}: max steps"] = variant.get("max_steps")
        else:
            settings[f"variant {name}: pages"] = [_page(page) for page in variant.get("pages") or []]
    return settings


def simulation_settings(config: dict) -> dict:
    """The settings of a simulation's config (agent/simulation/config.py) that shape its outcomes."""
    ids = list(config.get("persona_ids") or [])
    return {
        "start page": config.get("url"),
        "brain": config.get("brain"),
        "model": config.get("model"),
        "seed": config.get("seed"),
        "personas": f"{len(ids)}: {', '.join(sorted(ids))}",
        "max steps": config.get("max_steps"),
        "task": config.get("task"),
        "timeouts (ms): navigation, action, idle": [
            config.get("navigation_timeout_ms"),
            config.get("action_timeout_ms"),
            config.get("idle_timeout_ms"),
        ],
    }


def settings_diff(a: dict, b: dict) -> dict:
    """{"differences": [{setting, a, b}], "same": [setting]}, in the order the settings are named."""
    differences, same = [], []
    for name in list(a) + [n for n in b if n not in a]:
        if a.get(name) == b.get(name):
            same.append(name)
        else:
            differences.append({"setting": name, "a": a.get(name), "b": b.get(name)})
    return {"differences": differences, "same": same}


def _page(page: dict) -> dict:
    """A page as the spec gave it; inline HTML as its length and hash, which say whether two pages are the same."""
    shown: dict[str, str | int | float | bool] = {}
    for key, value in page.items():
        if key in ("simplified_html", "html") and isinstance(value, str):
            digest = hashlib.sha256(value.encode("utf-8", "backslashreplace")).hexdigest()[:12]
            shown[key] = f"inline, {len(value)} characters, sha256 {digest}"
        elif value is not None:
            shown[key] = value if isinstance(value, (str, int, float, bool)) else json.dumps(value, sort_keys=True)
    return shown


def seed_note(seed_a: object, seed_b: object) -> list[str]:
    """A note for the comparison when the two runs' seeds differ, else none."""
    if seed_a == seed_b:
        return []
    return [
        (
            f"the seeds differ ({seed_a} vs {seed_b}): the twins' own random draws differ too, which is part of the "
            "noise the tests allow for"
        )
    ]
