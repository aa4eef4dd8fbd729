"""Services on a temp data dir holding the twins the browser tests use: a real OPeRA user (users_sample.csv) and
the hand-written example persona (personas/examples/sam-chen.json); or the first OPeRA personas (personas.jsonl)."""

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
    for persona in load_personas(opera_dir / "users_sample.csv") + load_personas(
        REPO / "personas/examples/sam-chen.json"
    ):
        services.store.put_persona(persona)
    return services


def services_with_opera_personas(data_dir: Path, opera_dir: Path, count: int) -> tuple[Services, list]:
    """Services holding the first `count` of OPeRA's 52 personas (personas.jsonl, in file order), and those personas."""
    services = build_services(Settings(data_dir=data_dir), warm=False)
    personas = load_personas(opera_dir / "personas.jsonl")[:count]
    for persona in personas:
        services.store.put_persona(persona)
    return services, personas
