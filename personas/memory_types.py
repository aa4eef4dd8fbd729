"""A memory as recalled: what the twin remembers, of which kind, and how relevant it was."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

MemoryKind = Literal["profile", "preference", "personality", "interview", "transcript", "event"]


class Memory(BaseModel):
    id: str
    persona_id: str
    kind: MemoryKind
    text: str
    score: float | None = Field(None, description="Similarity to the recall query, 0..1 (higher is closer).")
    created_at: str | None = None
