"""Paging parameters, bounded alike on every list route: an unbounded offset overflowed SQLite's integers (a 500)."""

from __future__ import annotations

from fastapi import Query

MAX_OFFSET = 1_000_000_000  # far beyond any store here, far within a signed 64-bit integer


def limit_query(default: int, maximum: int):
    return Query(default, ge=1, le=maximum, description=f"At most this many items (1..{maximum}).")


def offset_query():
    return Query(0, ge=0, le=MAX_OFFSET, description=f"Skip this many items first (0..{MAX_OFFSET}).")
