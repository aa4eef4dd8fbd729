"""Exports of what twins did: one row per decision (a step of a twin's run), with the person, the page, the
action, the rationale, the memories and the drivers behind it, for analysts' tools (JSONL and Parquet)."""
