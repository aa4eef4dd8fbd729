"""Every sample and decision record of benchmarks/experiment_speed.py's setup (the bulk path, 50 personas x 20
instances x 2 variants, and 25 x 2 x 2 units through the graph with the embedded brain), written to one JSON file.

Why: a change to how twins decide that must not change what they decide is checked by running this at two
commits and comparing the files (memory ids differ between runs: each store import makes its own).
usage: .venv/bin/python benchmarks/experiment_decisions.py OUT.json
"""

import asyncio
import json
import sys
import tempfile
from pathlib import Path

import experiment_speed as es

from agent.brains.embedded import EmbeddedBrain
from agent.experiments.prepared import prepare
from agent.experiments.runner import personas_from, run_experiment
from agent.graph import TwinGraph
from personas.open_store import open_memory_store
from personas.sources import load_personas


def dump(samples) -> list[dict]:
    """Samples in a fixed order, each with its decision records (kept out of a sample's own dump)."""
    out = []
    for s in sorted(samples, key=lambda s: (s.variant, s.persona_id, s.instance)):
        d = s.model_dump(mode="json")
        d["decisions"] = [r.model_dump(mode="json") for r in s.decisions]
        out.append(d)
    return out


def main() -> None:
    tmp = tempfile.mkdtemp()
    store = open_memory_store(path=Path(tmp) / "chroma")
    people = load_personas(es.SHARED_OPERA / "personas.jsonl")[:50]
    for p in people:
        store.put_persona(p)
    ids = sorted(p.id for p in people)
    brain = EmbeddedBrain()
    spec = es.spec(ids, 20)
    prepared = prepare(spec, personas_from(store, ids), store)
    bulk = run_experiment(prepared, embedded=brain).samples
    graph = TwinGraph({"embedded": brain}, memory=store)
    gspec = es.spec(ids[:25], 2)
    gprep = prepare(gspec, personas_from(store, ids[:25]), store)
    gsamples = asyncio.run(es._through_graph(gprep, graph))
    with open(sys.argv[1], "w") as out:
        json.dump({"bulk": dump(bulk), "graph": dump(gsamples)}, out, indent=0, sort_keys=True)
    print(len(bulk), len(gsamples))


if __name__ == "__main__":
    main()
