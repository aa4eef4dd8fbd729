"""`twinsim interview` on a real experiment run (embedded brain, the sample pages, the example personas in a real
Chroma store): every sentence of the offline answer is a driver of the decision asked about, in the words of its
export row, or a verbatim quote of a memory it lists; bad input exits 2 with the reason."""

from __future__ import annotations

import json

import pytest

from tests.support.cli_experiment_run import cli_run, invoke


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return cli_run(tmp_path_factory.mktemp("interview-cli"))


def interview(run, *args):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TWINSIM_DATA_DIR", str(run["root"] / "data"))
        return invoke("interview", *args)


def test_the_cli_interviews_a_twin_about_a_decision_of_the_run(run):
    rows = [json.loads(line) for line in (run["out"] / "decisions.jsonl").read_text().splitlines()]
    left = next(r for r in rows if r["persona_id"] == "sam-chen" and r["action_type"] == "terminate")
    result = interview(
        run,
        "sam-chen",
        "Why did you leave?",
        "--run",
        run["out"],
        "--variant",
        left["variant"],
        "--instance",
        left["instance"],
        "--json",
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["decision"]["decision_id"] == left["decision_id"] and answer["brain"] == "embedded"
    assert answer["decision"]["rationale"] == left["rationale"]
    phrases = {r["driver"]: r["phrase"] for r in left["reasons"]}
    memories = {m["id"]: m["text"] for m in answer["memories"]}
    assert answer["sentences"] and answer["answer"] == " ".join(s["text"] for s in answer["sentences"])
    for sentence in answer["sentences"]:
        if sentence["source"] == "driver":
            assert sentence["text"].rstrip(".").lower() == phrases[sentence["driver"]].rstrip(".").lower()
        else:
            assert sentence["source"] == "memory"
            assert sentence["text"].strip("\u201c\u201d").rstrip("…") in memories[sentence["memory_id"]]
    assert {s["source"] for s in answer["sentences"]} == {"driver", "memory"}

    shown = interview(run, "sam-chen", "Why did you leave?", "--run", run["out"], "--decision", left["decision_id"])
    assert shown.exit_code == 0 and left["decision_id"] in shown.output and "answer (embedded)" in shown.output


@pytest.mark.parametrize(
    "args, message",
    [
        (("nobody", "Why?"), "persona 'nobody' not found"),
        (("sam-chen", "Why?", "--variant", "B"), "refer to a decision of a run: add --run"),
        (("sam-chen", "Why?", "--run", "no-such-run"), "run 'no-such-run' not found"),
        (("sam-chen", "x" * 100_000), "the question is 100,000 characters; at most 2,000"),
        (("sam-chen", "Why?", "--run", "{out}", "--variant", "Z"), "has no decision with variant='Z'"),
        (("sam-chen", "Why?", "--run", "{out}", "--decision", "A/sam-chen/0/99"), "no decision 'A/sam-chen/0/99'"),
        (("sam-chen", "Why?", "--run", "{empty}"), "has no decision export"),
    ],
)
def test_cli_interview_refuses_bad_input_with_the_reason(run, tmp_path, args, message):
    (tmp_path / "empty").mkdir()
    args = [str(a).format(out=run["out"], empty=tmp_path / "empty") for a in args]
    result = interview(run, *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()) and "Traceback" not in result.output
