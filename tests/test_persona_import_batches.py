"""`twinsim personas import` writes in batches (put_personas) and still stores exactly what one persona at a time
did: the same records and memories, one outcome line per persona in the file's order; merging through the tenant
store keeps a persona's events. OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from personas.memory_store import MEMORIES_COLLECTION
from personas.memory_texts import persona_memory_texts
from personas.open_store import open_memory_store
from personas.sources import load_personas
from service.cli.main import app
from service.cli.persona_import import BATCH_MEMORIES


def twinsim(data_dir, *args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"TWINSIM_DATA_DIR": str(data_dir), "COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output


def digest(opera_dir, path, lines: slice):
    path.write_text("\n".join((opera_dir / "personas.jsonl").read_text().splitlines()[lines]) + "\n")
    return path


def test_a_batched_import_stores_what_one_persona_at_a_time_did(tmp_path, opera_dir):
    jsonl = digest(opera_dir, tmp_path / "personas.jsonl", slice(0, 14))
    personas = load_personas(jsonl)
    assert sum(len(persona_memory_texts(p)) for p in personas) > 2 * BATCH_MEMORIES  # several batches

    output = twinsim(tmp_path / "batched", "personas", "import", str(jsonl))
    assert re.findall(r"^imported (\S+) ", output, re.MULTILINE) == [p.id for p in personas]  # in the file's order
    batched = open_memory_store(path=tmp_path / "batched" / "chroma")
    one_by_one = open_memory_store(path=tmp_path / "one-by-one" / "chroma")
    for persona in personas:
        one_by_one.put_persona(persona)

    assert batched.persona_ids() == one_by_one.persona_ids() == sorted(p.id for p in personas)
    for persona in personas:
        assert batched.get_persona(persona.id) == persona
        rows = [(m.kind, m.text) for m in batched.list_memories(persona.id, limit=10_000)]
        assert rows == [(m.kind, m.text) for m in one_by_one.list_memories(persona.id, limit=10_000)]
        assert rows == list(persona_memory_texts(persona))
        assert re.search(
            rf"^imported {persona.id} \({len(rows)} memories\): from personas.jsonl$", output, re.MULTILINE
        )
        query = "do I read reviews before I buy?"
        assert [m.id.rsplit(":", 1)[-1] for m in batched.recall(persona.id, query, k=3)] == [
            m.id.rsplit(":", 1)[-1] for m in one_by_one.recall(persona.id, query, k=3)
        ]
    total = sum(len(persona_memory_texts(p)) for p in personas)
    assert batched._client.get_collection(MEMORIES_COLLECTION).count() == total  # no stray generation


def test_a_re_import_reports_every_persona_in_order_and_merges_keep_events(tmp_path, opera_dir):
    first = digest(opera_dir, tmp_path / "first.jsonl", slice(0, 4))
    twinsim(tmp_path / "data", "personas", "import", str(first))
    store = open_memory_store(path=tmp_path / "data" / "chroma")
    kept = load_personas(first)[1]
    store.add_memory(kept.id, "Last week I returned a blender because it was too loud.")

    lines = (opera_dir / "personas.jsonl").read_text().splitlines()
    changed = lines[1].replace('"self_description": "', '"self_description": "I now buy everything used. ', 1)
    assert changed != lines[1]
    second = tmp_path / "second.jsonl"
    second.write_text("\n".join([lines[4], lines[0], changed, lines[5], lines[2]]) + "\n")
    output = twinsim(tmp_path / "data", "personas", "import", str(second))

    ids = [p.id for p in load_personas(second)]
    assert re.findall(r"^(\w+) (\S+) \(", output, re.MULTILINE) == list(
        zip(["imported", "unchanged", "merged", "imported", "unchanged"], ids, strict=True)
    )
    assert store.get_persona(kept.id).self_description.startswith("I now buy everything used.")
    memories = [m.text for m in store.list_memories(kept.id, limit=10_000)]
    assert any("blender" in text for text in memories)  # the event moved to the merged persona
    assert len(store.persona_ids()) == 6
