"""Experiments run the embedded brain the service was started with: TWINSIM_BEHAVIOUR_PARAMS reaches an
experiment's bulk runs exactly as it reaches /predict (they used to build the shipped brain of their own)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.experiments.execution import ExperimentExecutor
from agent.experiments.planning import check_experiment
from agent.experiments.spec import parse_spec
from personas.sources import load_personas
from service.container import build_services, experiment_context
from service.settings import Settings
from tests.support.sample_twins import EXAMPLE, OPERA_USER

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "agent" / "behaviour" / "params.json"


def leave_rate(tmp_path: Path, opera_dir: Path, params: Path | None) -> float:
    services = build_services(Settings(data_dir=tmp_path, behaviour_params=params), warm=False)
    for persona in load_personas(opera_dir / "users_sample.csv") + load_personas(
        REPO / "personas/examples/sam-chen.json"
    ):
        services.store.put_persona(persona)
    spec = parse_spec(
        {
            "name": "params reach experiments",
            "variants": [
                {"name": name, "page": {"path": str(REPO / "agent/sample_pages/product_page.html")}}
                for name in ("A", "B")
            ],
            "population": {"ids": [OPERA_USER, EXAMPLE]},
            "samples_per_persona": 20,
            "seed": 3,
        }
    )
    context = experiment_context(services)
    results = ExperimentExecutor(context).run(check_experiment(context, spec, allow_paths=True))
    return results["analysis"]["variants"]["A"]["rates"]["leave"]["rate"]


def test_an_experiment_uses_the_behaviour_parameters_the_service_was_started_with(tmp_path, opera_dir):
    leaving = json.loads(SHIPPED.read_text())  # a sequence model in which every step ends the session
    terminate = leaving["labels"].index("terminate")
    one_hot = [1.0 if i == terminate else 0.0 for i in range(len(leaving["labels"]))]
    chain = leaving["label_chain"]
    chain["overall"] = one_hot
    chain["transitions"] = dict.fromkeys(chain["transitions"], one_hot)
    params = tmp_path / "leaving_params.json"
    params.write_text(json.dumps(leaving))

    shipped = leave_rate(tmp_path / "shipped", opera_dir, None)
    custom = leave_rate(tmp_path / "custom", opera_dir, params)

    # the page and the person still act on top of the sequence model, so not every twin leaves
    assert custom > shipped + 0.2, (
        f"the experiment ignored TWINSIM_BEHAVIOUR_PARAMS: leave {shipped:.2f} -> {custom:.2f}"
    )
