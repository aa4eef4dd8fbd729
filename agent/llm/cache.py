"""A cache of LLM answers so evaluations and experiments that re-run the same prompts do not pay twice.

Keyed by a hash of everything that determines an answer (model, messages, temperature, seed). An LRU
in memory answers within a process; an optional SQLite file carries answers across processes and runs.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class CachedResponse:
    """What a paid call returned, with what it cost then (a hit costs nothing now)."""

    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


def cache_key(
    model: str,
    messages: list[dict],
    temperature: float | None,
    seed: int | None = None,
    response_format: dict | None = None,
) -> str:
    """A stable sha256 over the request's meaning; dict order and whitespace do not matter. A schema-constrained
    request is another request (its answer differs), so the response format is part of the key when there is one."""
    extra = {"response_format": response_format} if response_format is not None else {}
    payload = json.dumps(
        {"model": model, "messages": messages, "temperature": temperature, "seed": seed, **extra},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """LRU in memory (max_entries), backed by a SQLite file when `path` is given. Thread-safe."""

    def __init__(self, path: str | Path | None = None, max_entries: int = 4096) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self.path = Path(path) if path is not None else None
        self._memory: OrderedDict[str, CachedResponse] = OrderedDict()
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at REAL NOT "
                "NULL)"
            )
            self._db.commit()

    def get(self, key: str) -> CachedResponse | None:
        with self._lock:
            hit = self._memory.get(key)
            if hit is not None:
                self._memory.move_to_end(key)
                return hit
            if self._db is None:
                return None
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            hit = CachedResponse(**json.loads(row[0]))
            self._remember(key, hit)
            return hit

    def put(self, key: str, response: CachedResponse) -> None:
        with self._lock:
            self._remember(key, response)
            if self._db is not None:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)",
                    (key, json.dumps(asdict(response), ensure_ascii=False), time.time()),
                )
                self._db.commit()

    def __len__(self) -> int:
        """Entries on disk when there is a file, else in memory."""
        with self._lock:
            if self._db is not None:
                return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
            return len(self._memory)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _remember(self, key: str, response: CachedResponse) -> None:
        self._memory[key] = response
        self._memory.move_to_end(key)
        while len(self._memory) > self.max_entries:
            self._memory.popitem(last=False)
