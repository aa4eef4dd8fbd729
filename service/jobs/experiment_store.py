"""Experiments and their finished samples, durable in SQLite (stdlib sqlite3, WAL) under the data dir.

Finished samples are written as the run goes, so a run cut short (a crash, a restart) loses nothing it had
finished: on the next start `mark_interrupted` turns its "running" into "interrupted", and a resume hands the
stored samples back to the runner, which skips them. One short-lived connection per operation keeps the store
safe to use from the event loop and from worker threads at once.
"""

from __future__ import annotations

import builtins  # `list` in the class below is its method
import json
import sqlite3
import uuid
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from agent.experiments.samples import Sample
from service.tenancy import ADMIN, DEFAULT_TENANT, current_tenant

Status = Literal["queued", "running", "done", "failed", "interrupted"]
STATUSES: tuple[str, ...] = ("queued", "running", "done", "failed", "interrupted")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS experiments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    results TEXT,
    error TEXT,
    tenant TEXT NOT NULL DEFAULT 'default'
);
CREATE TABLE IF NOT EXISTS samples (
    experiment_id TEXT NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
    variant TEXT NOT NULL,
    persona_id TEXT NOT NULL,
    instance INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (experiment_id, variant, persona_id, instance)
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class ExperimentRecord:
    id: str
    name: str
    spec: dict
    status: str
    done: int
    total: int
    created_at: str
    updated_at: str
    results: dict | None
    error: str | None
    tenant: str = DEFAULT_TENANT

    @property
    def progress(self) -> dict:
        return {
            "done": self.done,
            "total": self.total,
            "fraction": round(self.done / self.total, 4) if self.total else 0.0,
        }


class ExperimentNotFound(KeyError):
    pass


class ExperimentStore:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            if "tenant" not in {row[1] for row in db.execute("PRAGMA table_info(experiments)")}:
                # a store from before tenants: its experiments belong to the default tenant
                db.execute("ALTER TABLE experiments ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default'")

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across process crashes
        return db

    # ---- experiments ----------------------------------------------------------------------------

    def create(self, spec: dict, total: int) -> str:
        """A new experiment of the current tenant (service/tenancy.py; an admin's is `*`, seen by admins only)."""
        experiment_id = uuid.uuid4().hex[:16]
        now = _now()
        tenant = current_tenant()
        with closing(self._connect()) as db, db:
            db.execute(
                "INSERT INTO experiments (id, name, spec, status, done, total, created_at, updated_at, tenant) "
                "VALUES (?, ?, ?, 'queued', 0, ?, ?, ?, ?)",
                (experiment_id, str(spec.get("name", "")), json.dumps(spec), total, now, now, tenant),
            )
        return experiment_id

    def _row(self, row: tuple) -> ExperimentRecord:
        id_, name, spec, status, done, total, created, updated, results, error, tenant = row
        return ExperimentRecord(
            id_,
            name,
            json.loads(spec),
            status,
            done,
            total,
            created,
            updated,
            json.loads(results) if results else None,
            error,
            tenant,
        )

    @staticmethod
    def _scope() -> tuple[str, tuple]:
        """The SQL condition limiting rows to the current tenant's (none for an admin)."""
        tenant = current_tenant()
        return ("1 = 1", ()) if tenant == ADMIN else ("tenant = ?", (tenant,))

    def get(self, experiment_id: str) -> ExperimentRecord:
        """The current tenant's experiment; another tenant's is not found."""
        scope, args = self._scope()
        with closing(self._connect()) as db:
            row = db.execute(
                "SELECT id, name, spec, status, done, total, created_at, updated_at, results, error, "
                f"tenant FROM experiments WHERE id = ? AND {scope}",
                (experiment_id, *args),
            ).fetchone()
        if row is None:
            raise ExperimentNotFound(experiment_id)
        return self._row(row)

    def list(self, limit: int = 100, offset: int = 0) -> list[ExperimentRecord]:
        """The current tenant's, newest first, without results (they can be large)."""
        scope, args = self._scope()
        with closing(self._connect()) as db:
            rows = db.execute(
                "SELECT id, name, spec, status, done, total, created_at, updated_at, NULL, error, tenant "
                f"FROM experiments WHERE {scope} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?",
                (*args, limit, offset),
            ).fetchall()
        return [self._row(r) for r in rows]

    def set_status(
        self, experiment_id: str, status: Status, *, error: str | None = None, results: dict | None = None
    ) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status}")
        with closing(self._connect()) as db, db:
            cursor = db.execute(
                "UPDATE experiments SET status = ?, error = ?, results = COALESCE(?, results), "
                "updated_at = ? WHERE id = ?",
                (status, error, json.dumps(results) if results is not None else None, _now(), experiment_id),
            )
            if cursor.rowcount == 0:
                raise ExperimentNotFound(experiment_id)

    def set_progress(self, experiment_id: str, done: int, total: int) -> None:
        with closing(self._connect()) as db, db:
            db.execute(
                "UPDATE experiments SET done = ?, total = ?, updated_at = ? WHERE id = ?",
                (done, total, _now(), experiment_id),
            )

    def mark_interrupted(self) -> builtins.list[str]:
        """At start-up: whatever was running or queued when the process ended did not finish."""
        with closing(self._connect()) as db, db:
            ids = [r[0] for r in db.execute("SELECT id FROM experiments WHERE status IN ('running', 'queued')")]
            db.execute(
                "UPDATE experiments SET status = 'interrupted', error = 'the service stopped before the run "
                "finished; POST /experiments/{id}/resume continues it', updated_at = ? "
                "WHERE status IN ('running', 'queued')",
                (_now(),),
            )
        return ids

    # ---- samples --------------------------------------------------------------------------------

    def add_samples(self, experiment_id: str, samples: Iterable[Sample]) -> None:
        rows = [(experiment_id, s.variant, s.persona_id, s.instance, s.model_dump_json()) for s in samples]
        if not rows:
            return
        with closing(self._connect()) as db, db:
            db.executemany(
                "INSERT OR REPLACE INTO samples (experiment_id, variant, persona_id, instance, data) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def samples(self, experiment_id: str) -> builtins.list[Sample]:
        with closing(self._connect()) as db:
            rows = db.execute("SELECT data FROM samples WHERE experiment_id = ?", (experiment_id,)).fetchall()
        return [Sample.model_validate_json(r[0]) for r in rows]

    def count_samples(self, experiment_id: str) -> int:
        with closing(self._connect()) as db:
            return db.execute("SELECT COUNT(*) FROM samples WHERE experiment_id = ?", (experiment_id,)).fetchone()[0]
