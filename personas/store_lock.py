"""One process per embedded Chroma directory: a lock file held for the life of the process.

An embedded (PersistentClient) store keeps an in-memory index; a second process writing to the same
directory leaves the first one's index stale, and its next recall fails with Chroma's "Error finding id".
So the first process to open a directory takes an OS lock on `<dir>/twinsim.lock` and keeps it until it
exits; the OS drops the lock when a process dies, so a killed process never blocks the next one. Opening
the same directory again in the same process is allowed (tests, the app and the CLI do).
Several processes (API replicas, uvicorn workers, an import beside a running API) need a Chroma server.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from filelock import FileLock, Timeout

LOCK_NAME = "twinsim.lock"
_held: dict[Path, FileLock] = {}
_guard = threading.Lock()


class StoreInUse(RuntimeError):
    """Another process holds this embedded store."""


def hold_store_directory(path: str | Path) -> None:
    """Take (or keep) this process's lock on an embedded store directory; StoreInUse if another has it."""
    directory = Path(path).resolve()
    with _guard:
        if directory in _held:
            return
        directory.mkdir(parents=True, exist_ok=True)
        lock = FileLock(directory / LOCK_NAME, is_singleton=False)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise StoreInUse(
                f"the embedded store at {directory} is in use by another process (lock {directory / LOCK_NAME}); "
                "an embedded store serves one process at a time. Stop the other process, or run a Chroma server "
                "(`chroma run --path DIR --port 8001`) and point every process at it with "
                "TWINSIM_CHROMA_URL=http://127.0.0.1:8001"
            ) from None
        _held[directory] = lock  # never released: the OS drops it when this process exits


def holds_store_directory(path: str | Path) -> bool:
    return Path(path).resolve() in _held


def _forget_locks_in_child() -> None:
    """A forked child inherits the parent's file descriptors but not its right to the store."""
    _held.clear()


os.register_at_fork(after_in_child=_forget_locks_in_child)
