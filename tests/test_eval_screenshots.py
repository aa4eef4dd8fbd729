"""`twinsim eval --screenshots`: the LLM twin sees each recorded step's screenshot, OPeRA's `image` column (Wang et al.
2025, arXiv 2506.05606) or Multimodal-Mind2Web's `screenshot` (Zheng et al. 2024, arXiv 2401.01614), where the row has
one; an unreadable one is noted, not fatal. Rows here are the small fixtures with screenshots drawn for the test
(not recorded ones), sent over real HTTP to the loopback OpenAI-compatible server."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image
from typer.testing import CliRunner

from agent.llm.set_of_marks import OUTLINE_PX, PALETTE
from agent.page.node_pages import parse_bbox
from service.cli.main import app
from tests.support.mind2web_fixture import rows
from tests.support.openai_server import OpenAICompatibleServer

pytestmark = pytest.mark.integration
SMALL = Path(__file__).resolve().parent / "fixtures" / "opera_small"


def png(shade: int, size=(1280, 1000)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (shade, shade, shade)).save(out, format="PNG")
    return out.getvalue()


def images_sent(server) -> list[bytes]:
    sent = []
    for request in server.requests:
        content = request["messages"][1]["content"]
        if isinstance(content, list):
            sent += [
                base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in content if p["type"] == "image_url"
            ]
    return sent


@pytest.fixture
def env(tmp_path):
    return {"TWINSIM_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "TWINSIM_LLM_RETRIES": "0"}


def test_opera_rows_image_column_goes_to_the_model_with_screenshots(env, tmp_path):
    table = pq.read_table(SMALL / "actions.parquet").to_pylist()
    first_session = table[0]["session_id"]
    shots: list[bytes] = []
    for number, row in enumerate(table):
        if row["session_id"] == first_session and number != 1:
            shots.append(png(200 + number))
            row["image"] = {"bytes": shots[-1], "path": None}  # the Hugging Face image struct
        else:
            row["image"] = {"bytes": b"not a png" if number == 1 else None, "path": None}
    actions = tmp_path / "actions_with_images.parquet"
    pq.write_table(pa.Table.from_pylist(table), actions)
    answer = '{"rationale": "Searching.", "action": {"type": "click", "name": "nav_bar.search_button"}}'
    base = [
        "eval",
        "--actions",
        str(actions),
        "--users",
        str(SMALL / "personas.jsonl"),
        "--brain",
        "llm",
        "--model",
        "openai/twin-test",
        "--vision",
        "always",
        "--limit",
        "2",
        "--concurrency",
        "2",
    ]
    with OpenAICompatibleServer(default_reply=answer) as server:
        env = {**env, "TWINSIM_LLM_API_BASE": server.base_url}
        result = CliRunner().invoke(app, [*base, "--screenshots", "--out", str(tmp_path / "with.json")], env=env)
        assert result.exit_code == 0, result.output
        assert sorted(images_sent(server)) == sorted(shots)  # each row's own picture, and only those
        run = json.loads((tmp_path / "with.json").read_text())["run"]
        n = json.loads((tmp_path / "with.json").read_text())["metrics"]["n"]
        assert run["screenshots"] == {
            "steps": n,
            "by_fate": {"none in the row": n - len(shots) - 1, "sent": len(shots), "unreadable": 1},
        }
        server.reset()
        result = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "without.json")], env=env)
        assert result.exit_code == 0, result.output
        assert images_sent(server) == []  # without --screenshots no picture goes
        # Only the steps that had a picture make new prompts; the others are the first run's, from its cache.
        assert server.completions_served == len(shots)
        assert json.loads((tmp_path / "without.json").read_text())["run"]["screenshots"] is None


def test_mind2web_screenshots_with_set_of_marks(env, tmp_path):
    screenshot = png(255)
    folder = tmp_path / "m2w"
    folder.mkdir()
    with (folder / "test_website-00000-of-00001.jsonl").open("w") as handle:
        for split, row in rows():
            if split == "test_website":  # a JSONL copy carries the image as base64 text
                handle.write(json.dumps({**row, "screenshot": base64.b64encode(screenshot).decode()}) + "\n")
    answer = '{"rationale": "The first box.", "action": {"type": "click", "choice": 1}}'
    with OpenAICompatibleServer(default_reply=answer) as server:
        env = {**env, "TWINSIM_LLM_API_BASE": server.base_url}
        out = tmp_path / "m2w.json"
        result = CliRunner().invoke(
            app,
            [
                "eval",
                "--format",
                "mind2web",
                str(folder),
                "--brain",
                "llm",
                "--model",
                "openai/twin-test",
                "--screenshots",
                "--grounding",
                "set-of-marks",
                "--vision",
                "always",
                "--concurrency",
                "1",
                "--out",
                str(out),
            ],
            env=env,
        )
        assert result.exit_code == 0, result.output
        requests = list(server.requests)
    assert len(requests) == 2  # one call at a time, so the requests come in the rows' order
    steps = [json.loads(line) for line in (tmp_path / "m2w.steps.jsonl").read_text().splitlines()]
    for (_, row), request, step in zip([r for r in rows() if r[0] == "test_website"], requests, steps, strict=True):
        content = request["messages"][1]["content"]
        marked = Image.open(
            io.BytesIO(
                base64.b64decode(
                    next(p for p in content if p["type"] == "image_url")["image_url"]["url"].split(",", 1)[1]
                )
            )
        ).convert("RGB")
        candidates = [json.loads(c["attributes"]) for c in row["pos_candidates"] + row["neg_candidates"]]
        for attributes in candidates:  # every candidate's box is drawn, in a mark colour, on the white page
            x, y, _, h = parse_bbox(attributes["bounding_box_rect"])
            assert marked.getpixel((int(x) + OUTLINE_PX // 2, int(y + h / 2))) in PALETTE
        assert f"numbered boxes ({len(candidates)} of them" in next(p["text"] for p in content if p["type"] == "text")
        assert step["screenshot"] == f"sent, {len(candidates)} elements marked with numbered boxes"
        assert step["choice"] == 1 and step["predicted_node"] is not None and not step["fallback"]
    report = json.loads(out.read_text())
    assert report["run"]["grounding"] == "set_of_marks" and report["run"]["screenshots"] == {"sent": 2}
