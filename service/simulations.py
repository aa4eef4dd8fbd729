"""Live simulations for the CLI and the API alike: check the request against the store and the graph
before any browser starts, then run it on its own event loop (off the caller's loop)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from agent.browsing import SimulationConfig, SimulationResult, run_simulation
from agent.browsing.chromium import chromium_path
from agent.browsing.output import write_outputs
from agent.browsing.trace import TwinTrace
from personas.memory_store import PersonaNotFound
from personas.persona import Persona
from service.container import Services


class SimulationRequestError(ValueError):
    """The request cannot run as asked (unknown persona or brain, no browser); the message says why."""


def persona_ids_for(services: Services, ids: list[str], all_personas: bool) -> list[str]:
    """The ids named, or every stored persona with all_personas."""
    if all_personas:
        stored = list(services.store.persona_ids())
        if not stored:
            raise SimulationRequestError("no personas stored; import some with `twinsim personas import FILE`")
        return sorted(stored)
    return ids


def check_and_load(services: Services, config: SimulationConfig) -> list[Persona]:
    """Everything that can be checked without a browser: brain, personas, Chromium."""
    if config.brain not in services.graph.brains:
        raise SimulationRequestError(f"unknown brain '{config.brain}'; available: {', '.join(services.graph.brains)}")
    personas, missing = [], []
    for persona_id in config.persona_ids:
        try:
            personas.append(services.store.get_persona(persona_id))
        except (PersonaNotFound, ValueError):
            missing.append(persona_id)
    if missing:
        raise SimulationRequestError(f"unknown persona(s): {', '.join(missing)}")
    try:
        chromium_path()
    except RuntimeError as error:
        raise SimulationRequestError(str(error)) from None
    return personas


def run_blocking(services: Services, config: SimulationConfig, personas: list[Persona], out_dir: Path | None,
                 on_trace: Callable[[TwinTrace], None] | None = None) -> SimulationResult:
    """Run on a fresh event loop in the calling thread (the CLI's, or an API worker thread), write outputs."""
    result = asyncio.run(run_simulation(config, personas, services.graph, out_dir, on_trace))
    if out_dir is not None:
        write_outputs(result, out_dir)
    return result
