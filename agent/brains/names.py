"""The brains a twin can be given, by name: one list for the API's schema, the CLI, experiments and evaluation.

Kept apart from the brains themselves so that a request schema can name them without loading any model.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BeforeValidator


class BrainName(StrEnum):
    EMBEDDED = "embedded"  # the calibrated behaviour model: offline, milliseconds, the fallback
    LLM = "llm"  # any litellm model
    REPEAT_PREVIOUS = "repeat-previous"  # baseline: the previous action again
    MAJORITY = "majority"  # baseline: the most common action in OPeRA


BRAIN_NAMES = tuple(name.value for name in BrainName)


def known_brain(value: object) -> object:
    """The reason a name is refused, worded the same everywhere."""
    if isinstance(value, str) and value not in BRAIN_NAMES:
        raise ValueError(f"unknown brain '{value}'; available: {', '.join(BRAIN_NAMES)}")
    return value


KnownBrain = Annotated[BrainName, BeforeValidator(known_brain)]
