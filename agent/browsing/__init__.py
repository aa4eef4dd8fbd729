"""Live UX simulations: twins browse a real site in headless Chromium, step by step.

Each step reads the rendered page, simplifies it (agent.page.simplifier, with a source map back to the live
DOM), asks the twin's graph for the next action, and performs it. Traces and the funnel say how far
the twins got, where they left and why.
"""

from agent.browsing.config import SimulationConfig
from agent.browsing.funnel import Funnel, summarise
from agent.browsing.simulation import SimulationResult, run_simulation
from agent.browsing.trace import TraceStep, TwinTrace

__all__ = ["Funnel", "SimulationConfig", "SimulationResult", "TraceStep", "TwinTrace", "run_simulation", "summarise"]
