"""ISO 8601 times as epoch seconds, read one way by the live history, the timelines and the action table,
so a session's gaps come out the same whichever source it came from."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache


@lru_cache(maxsize=4096)
def epoch_seconds(text: str) -> float | None:
    """Epoch seconds of an ISO 8601 time (with Z, an offset, or neither); None when the text is not one.

    A time without an offset is read as UTC, so the answer never depends on the machine's time zone.
    """
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
