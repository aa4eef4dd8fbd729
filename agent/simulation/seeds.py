"""Per-step seeds: each twin's draws depend only on (simulation seed, persona, step), so a run is
reproducible whatever order or concurrency the twins run in."""

from __future__ import annotations

import hashlib


def step_seed(seed: int, persona_id: str, step: int) -> int:
    digest = hashlib.sha256(f"{seed}:{persona_id}:{step}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
