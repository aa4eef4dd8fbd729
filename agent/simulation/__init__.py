"""Live UX simulations: twins browse a real site in headless Chromium, step by step.

Each step reads the rendered page, simplifies it (agent.page.simplifier, with a source map back to the live
DOM), asks the twin's graph for the next action, and performs it. Traces and the funnel say how far
the twins got, where they left and why. Driving Chromium itself (launching, tabs, navigation, snapshots, the
actuator) is agent/browser's; this package runs the simulation on top of it.

The names below load on first use: a caller that needs only a light module of the package (the config, the start
page's check) does not import the twin's graph with it, so `twinsim simulate` can start its browser before that.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.simulation.config import SimulationConfig
    from agent.simulation.funnel import Funnel, summarise
    from agent.simulation.run import SimulationResult, run_simulation
    from agent.simulation.trace import TraceStep, TwinTrace

_HOME = {
    "SimulationConfig": "agent.simulation.config",
    "Funnel": "agent.simulation.funnel",
    "summarise": "agent.simulation.funnel",
    "SimulationResult": "agent.simulation.run",
    "run_simulation": "agent.simulation.run",
    "TraceStep": "agent.simulation.trace",
    "TwinTrace": "agent.simulation.trace",
}
__all__ = ["Funnel", "SimulationConfig", "SimulationResult", "TraceStep", "TwinTrace", "run_simulation", "summarise"]


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)
