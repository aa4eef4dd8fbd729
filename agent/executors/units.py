"""What an executor is: `map(work, units)`, results in unit order. Experiments' bulk units and evaluations'
replayed steps are run by one, here in this process (InProcessExecutor) or as Ray tasks
(ray_units.RayExecutor); the caller owns the work and only hands over where it runs.

Why one protocol for both: a unit's result is a pure function of the unit and the shared work, so the way it
runs is interchangeable; results in unit order let evaluation pair them with their steps and let a stopped run
hand out nothing half-finished."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, TypeVar

Unit = TypeVar("Unit")
Result = TypeVar("Result")


class UnitExecutor(Protocol):
    """Runs `work` over `units` somewhere; yields the results in unit order."""

    def map(self, work: Callable[[Unit], Result], units: Sequence[Unit]) -> Iterator[Result]: ...


class InProcessExecutor:
    """Runs the units one after another in this process: the default, and the reference a distributed run's
    results are compared with."""

    def map(self, work: Callable[[Unit], Result], units: Sequence[Unit]) -> Iterator[Result]:
        for unit in units:
            yield work(unit)
