"""Why a twin's run stopped early. A failure is recorded in the trace and ends that twin's run; it is
never raised out of a simulation.
"""

from __future__ import annotations

from typing import Literal

FailureKind = Literal[
    "dead_link",  # the page answered HTTP 4xx/5xx
    "navigation_failed",  # the page could not be loaded at all (refused, DNS, bad TLS ...)
    "timeout",  # the page or an action did not finish in time
    "name_missing",  # the element the twin chose is not on the live page any more
    "empty_page",  # nothing on the page a twin could act on
    "browser_error",  # anything else the browser reported
]


class StepFailure(Exception):
    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message
