"""Live simulations for the CLI and the API alike: check the request against the store and the graph
before any browser starts (its start page: service/jobs/simulation_requests.py), then run it on its own event loop
(off the caller's loop)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

from agent.browser.chromium import chromium_path
from agent.browser.kept_browser import KeptBrowsers
from agent.executors.ray_twins import RayTwins
from agent.executors.ray_units import RayExecutor, RayUnavailable
from agent.simulation import SimulationConfig, SimulationResult, run_simulation
from agent.simulation.output import load_writers, write_outputs
from agent.simulation.run import run_on_kept_browser
from agent.simulation.start_page import start_failure
from agent.simulation.trace import TwinTrace
from personas.memory_store import PersonaNotFound
from personas.persona import Persona
from service.container import Services
from service.jobs.simulation_requests import SimulationRequestError, StartPageFailed, UnknownPersonas


def persona_ids_for(services: Services, ids: list[str], all_personas: bool) -> list[str]:
    """The ids named, or every stored persona with all_personas."""
    if all_personas:
        stored = list(services.store.persona_ids())
        if not stored:
            raise SimulationRequestError("no personas stored; import some with `twinsim personas import FILE`")
        return sorted(stored)
    return ids


def check_and_load(services: Services, config: SimulationConfig) -> list[Persona]:
    """Everything that can be checked without a browser (the brain is checked by the config): personas, Chromium."""
    personas, missing = [], []
    for persona_id in config.persona_ids:
        try:
            personas.append(services.store.get_persona(persona_id))
        except (PersonaNotFound, ValueError):
            missing.append(persona_id)
    if missing:
        raise UnknownPersonas(f"unknown persona(s): {', '.join(missing)}")
    try:
        chromium_path()
    except RuntimeError as error:
        raise SimulationRequestError(str(error)) from None
    return personas


def simulation_executor(services: Services):
    """Where the twins' sessions run (TWINSIM_EXECUTOR, as for experiments): None here, or Ray tasks on
    TWINSIM_RAY_ADDRESS (each session a Ray task on a worker with its own Chromium: agent/executors/ray_twins.py).
    An address that does not answer fails within seconds, when the run starts."""
    if services.settings.executor != "ray":
        return None
    return RayTwins(RayExecutor(services.settings.ray_address))


def _prepare(services: Services, writes_outputs: bool) -> None:
    """What the run needs later, loaded while the browser starts and the twins browse, when this process mostly
    waits: the embedding model (the first recall) and the libraries written outputs import. Whoever needs one first
    waits for it here (the embedder's lock, Python's import lock) instead of loading it a second time. A failure
    here is left for the run to meet where it is reported."""
    with contextlib.suppress(Exception):
        services.store.embedder.embed(["warm up"])
        if writes_outputs:
            load_writers()


def run_blocking(
    services: Services,
    config: SimulationConfig,
    personas: list[Persona],
    out_dir: Path | None,
    on_trace: Callable[[TwinTrace], None] | None = None,
    browsers: KeptBrowsers | None = None,
) -> SimulationResult:
    """Run on a fresh event loop in the calling thread (the CLI's, or an API worker thread), or on the loop of
    `browsers` (a browser the CLI started while it loaded the graph: agent/browser/kept_browser.py), write outputs.
    When no twin could open the start page (it died after the up-front check), StartPageFailed is raised and
    no report is written: a funnel of twins that never saw the site would read as a measurement."""
    executor = simulation_executor(services)
    threading.Thread(target=_prepare, args=(services, out_dir is not None), name="prepare-run", daemon=True).start()
    graph, allowed = services.graph, services.settings.host_allow_list
    try:
        if executor is None and browsers is not None:
            result = run_on_kept_browser(browsers, config, personas, graph, out_dir, on_trace, allowed)
        else:
            result = asyncio.run(run_simulation(config, personas, graph, out_dir, on_trace, executor, allowed))
    except RayUnavailable as error:
        raise SimulationRequestError(str(error)) from None
    reason = start_failure(result.traces)
    if reason is not None:
        raise StartPageFailed(reason)
    if out_dir is not None:
        write_outputs(result, out_dir, personas)
    return result
