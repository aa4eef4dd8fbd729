"""Services on a temp data dir holding the two twins the browser tests use: a real OPeRA user
(users_sample.csv) and the hand-written example persona (personas/examples/sam-chen.json)."""

from __future__ import annotations

from pathlib import Path

from personas.sources import load_personas
from service.container import Services, build_services
from service.settings import Settings

REPO = Path(__file__).resolve().parents[2]
OPERA_USER = "7f0c8207-6a6f-49cd-9d7e-17987cfafcb9"
EXAMPLE = "sam-chen"


def services_with_sample_twins(data_dir: Path, opera_dir: Path) -> Services:
    services = build_services(Settings(data_dir=data_dir), warm=False)
    for persona in load_personas(opera_dir / "users_sample.csv") + load_personas(REPO / "personas/examples/sam-chen.json"):
        services.store.put_persona(persona)
    return services
