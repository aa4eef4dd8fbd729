"""Re-importing a person from a thinner source never loses the richer record (the README's own order:
the OPeRA user table, then personas.jsonl), and the counts printed are the store's.
OPeRA: Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0.
"""

from __future__ import annotations

import re

from typer.testing import CliRunner

from personas.memory_texts import persona_memory_texts
from personas.open_store import open_memory_store
from personas.sources import load_personas
from service.cli.main import app


def digest_sample(opera_dir, tmp_path, rich_ids, others: int = 3):
    """personas.jsonl cut to the user table's people plus a few others: the same records, a quicker import."""
    lines = (opera_dir / "personas.jsonl").read_text().splitlines()
    chosen = [line for line in lines if any(pid in line for pid in rich_ids)]
    chosen += [line for line in lines if line not in chosen][:others]
    path = tmp_path / "personas.jsonl"
    path.write_text("\n".join(chosen) + "\n")
    return path


def twinsim(tmp_path, *args: str):
    result = CliRunner().invoke(app, list(args), env={"TWINSIM_DATA_DIR": str(tmp_path), "COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output


def stored_count(output: str) -> int:
    return int(re.search(r"^(\d+) persona\(s\) in ", output, re.MULTILINE).group(1))


def test_user_table_then_personas_jsonl_keeps_the_rich_records(tmp_path, opera_dir):
    users = opera_dir / "users_sample.csv"
    rich = {p.id: p for p in load_personas(users)}
    digest = digest_sample(opera_dir, tmp_path, rich)
    everyone = {p.id for p in load_personas(digest)} | set(rich)
    twinsim(tmp_path / "data", "personas", "import", str(users))
    store = open_memory_store(path=tmp_path / "data" / "chroma")
    first = next(iter(rich))
    store.add_memory(first, "Last week I returned a blender because it was too loud.")

    output = twinsim(tmp_path / "data", "personas", "import", str(digest))

    assert stored_count(output) == len(store.persona_ids()) == len(everyone)  # not 54 for a store of 52
    for pid, persona in rich.items():
        kept = store.get_persona(pid)
        assert kept.big_five.method == "ipip50" and kept.big_five.scores == persona.big_five.scores
        assert kept.transcript == persona.transcript and kept.mbti == persona.mbti
        texts = [m.text for m in store.list_memories(pid, limit=10_000)]
        assert set(texts) >= {text for _, text in persona_memory_texts(persona)}
        assert re.search(rf"^(merged|unchanged) {pid} \({len(texts)} memories\): ", output, re.MULTILINE)
    assert any("blender" in m.text for m in store.list_memories(first, limit=10_000))  # events kept too


def test_fields_only_the_newer_source_has_are_added(tmp_path, sample_users):
    from personas.merge import merge_personas

    rich = sample_users[0].model_copy(update={"name": None})
    thin = rich.model_copy(update={"transcript": None, "name": "Ana", "mbti": "ESTP"})
    merged = merge_personas(rich, thin)
    assert merged.kept == "stored" and merged.added == ("name",)
    assert merged.persona.name == "Ana" and merged.persona.mbti == rich.mbti and merged.persona.transcript


def test_both_files_in_one_command_and_replace_on_request(tmp_path, opera_dir):
    users = opera_dir / "users_sample.csv"
    rich = {p.id: p for p in load_personas(users)}
    digest = digest_sample(opera_dir, tmp_path, rich)
    thin = {p.id: p for p in load_personas(digest)}
    output = twinsim(tmp_path / "data", "personas", "import", str(users), str(digest))
    assert stored_count(output) == len(set(rich) | set(thin))
    store = open_memory_store(path=tmp_path / "data" / "chroma")
    pid = next(iter(rich))
    assert store.get_persona(pid).transcript == rich[pid].transcript

    output = twinsim(tmp_path / "data", "personas", "import", "--replace", str(digest))
    assert re.search(rf"^replaced {pid} .*replaced whole", output, re.MULTILINE)
    assert store.get_persona(pid) == thin[pid]
