"""What makes a live simulation request bad, and the one check of it that needs the network (its start page): light
to import, so that `twinsim simulate` can answer a bad request, and start the browser for a good one, before it
loads the twins' graph and store (service/jobs/simulations.py runs the simulation)."""

from __future__ import annotations

from agent.allowed_hosts import HostAllowList
from agent.simulation.config import SimulationConfig
from agent.simulation.start_page import StartPageUnreachable, check_start_url


class SimulationRequestError(ValueError):
    """The request cannot run as asked (unknown persona or brain, no browser); the message says why."""


class UnknownPersonas(SimulationRequestError):
    """Personas named that the store does not hold: not found, like an unknown persona in /predict."""


class StartPageFailed(SimulationRequestError):
    """The start URL cannot be loaded (checked up front, or every twin failed to open it): the run measured nothing."""


def check_start_page(config: SimulationConfig, allowed: HostAllowList | None) -> None:
    """One request to the start URL before any browser starts; StartPageFailed says why it cannot be loaded."""
    try:
        check_start_url(config.url, allowed, timeout_s=config.navigation_timeout_ms / 1000)
    except StartPageUnreachable as error:
        raise StartPageFailed(str(error)) from None
