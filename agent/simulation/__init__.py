"""Live UX simulations: twins browse a real site in headless Chromium, step by step.

Each step reads the rendered page, simplifies it (agent.page.simplifier, with a source map back to the live
DOM), asks the twin's graph for the next action, and performs it. Traces and the funnel say how far
the twins got, where they left and why. Driving Chromium itself (launching, tabs, navigation, snapshots, the
actuator) is agent/browser's; this package runs the simulation on top of it.
"""

from agent.simulation.config import SimulationConfig
from agent.simulation.funnel import Funnel, summarise
from agent.simulation.run import SimulationResult, run_simulation
from agent.simulation.trace import TraceStep, TwinTrace

__all__ = ["Funnel", "SimulationConfig", "SimulationResult", "TraceStep", "TwinTrace", "run_simulation", "summarise"]
