"""`twinsim demo`: the main job on the embedded default, offline: real OPeRA users become twins and act on a page."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console

REPO = Path(__file__).resolve().parents[2]
console = Console(soft_wrap=True)


def demo() -> None:
    """Import the OPeRA sample users, then let each twin act on a realistic search-results page (offline)."""
    run_demo(console)


def demo_people() -> list:
    """The two real OPeRA user-table rows (full survey and interview) when shared/ is beside the repo."""
    from agent.opera_data import opera_data_dir
    from personas.sources import load_personas

    sample = opera_data_dir() / "users_sample.csv"
    if sample.exists():
        return load_personas(sample)
    return load_personas(REPO / "personas" / "examples" / "maria.yaml")


def run_demo(console: Console) -> None:
    """The demo's steps; the store, the brains and the page readers load here, not when `twinsim` starts."""
    from agent.history import Step
    from agent.predict_use_case import PredictionServices, predict
    from agent.prediction_input import Page, PredictionInput
    from agent.sample_pages import sample_page
    from service.cli.demo_experiment import run_demo_experiment
    from service.container import build_services
    from service.settings import Settings

    settings = Settings()
    console.print(
        "[bold]twinsim demo[/bold]: embedded brain, no API key, no network. "
        "Personas: OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0)."
    )
    services = build_services(settings)
    people = demo_people()
    for persona in people:
        count = services.store.put_persona(persona)
        console.print(f"imported [bold]{persona.id}[/bold]: {count} memories ({persona.big_five.method} Big Five)")

    url = "https://www.amazon.com/s?k=usb+c+cable"
    page = Page(simplified_html=sample_page("search_results.html"), url=url)
    use_case = PredictionServices(graph=services.graph, personas=services.store)
    observation = use_case.read(page).observation
    history = [
        Step(
            action={"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
            rationale="I need a longer charging cable for my desk.",
        ),
        Step(action={"type": "click", "name": "nav_bar.search_button"}),
    ]
    console.print(
        f"\npage: search results for 'usb c cable' ({len(observation.candidates)} elements); "
        "history: typed the query, clicked search\n"
    )
    for persona in people:
        given = PredictionInput(persona_id=persona.id, page=page, history=history)
        prediction = asyncio.run(predict(given, use_case))
        console.print(f"[bold]twin {persona.id[:8]}[/bold] ({prediction.brain} brain, {prediction.latency_ms:.0f} ms)")
        console.print(f"  [cyan]rationale:[/cyan] {prediction.rationale}")
        console.print(
            f"  [green]action:[/green] {prediction.action.model_dump_json()} (click type {prediction.click_type})"
        )
        for memory in prediction.memories[:2]:
            console.print(f"  [dim]recalled ({memory.kind}, {memory.score:.2f}): {memory.text[:110]}[/dim]")
    run_demo_experiment(console, services, [persona.id for persona in people])
    console.print(f"\nstore: {services.store_description}. Next: `twinsim serve` and POST /predict (see README).")
