"""POST /predict with a screenshot: a good base64 PNG reaches the model through litellm (real HTTP to the loopback
OpenAI-compatible server); bad images (not an image, too large, too many pixels) and URLs that are not this service's
own simulation screenshots are 4xx with the reason, before any model call. A live simulation with the LLM brain shows
the model each step's screenshot, and that screenshot's address is what /predict accepts as a URL."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import time

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from agent.llm.set_of_marks import PALETTE
from service.api.app import create_app
from service.demo_shop import create_shop_app
from service.settings import Settings
from tests.conftest import page
from tests.support.live_server import serve

pytestmark = pytest.mark.integration
OPERA_USER = "7f0c8207-6a6f-49cd-9d7e-17987cfafcb9"
PRODUCT = "search_results.belkin_boostcharge_usb_c_to_usb_c_cable_6_6ft_usb_if_certified.product_name"
ANSWER = json.dumps({"rationale": "Belkin looks solid.", "action": {"type": "click", "name": PRODUCT}})


def png(width: int = 1280, height: int = 800, noise: bool = False) -> bytes:
    image = (
        Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
        if noise
        else Image.new("RGB", (width, height), (250, 250, 250))
    )
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture(scope="module")
def client(tmp_path_factory, opera_dir):
    from tests.support.openai_server import OpenAICompatibleServer

    with OpenAICompatibleServer() as server:
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("shots"),
            llm_api_base=server.base_url,
            llm_model="openai/twin-test",
            llm_vision="always",
            llm_timeout_s=5.0,
            llm_retries=0,
        )
        with TestClient(create_app(settings)) as test_client:
            csv.field_size_limit(10**9)
            with open(opera_dir / "users_sample.csv", newline="") as handle:
                row = next(csv.DictReader(handle))
            assert test_client.post("/personas", json=row).status_code == 201
            test_client.llm = server
            yield test_client


def predict(client, screenshot: dict, brain: str = "llm"):
    return client.post(
        "/predict",
        json={
            "persona_id": OPERA_USER,
            "brain": brain,
            "screenshot": screenshot,
            "page": {"simplified_html": page("search_results.html"), "url": "https://www.amazon.com/s?k=usb+c+cable"},
        },
    )


def sent_image(request: dict) -> bytes | None:
    content = request["messages"][1]["content"]
    parts = [p for p in content if p.get("type") == "image_url"] if isinstance(content, list) else []
    return base64.b64decode(parts[0]["image_url"]["url"].split(",", 1)[1]) if parts else None


def test_a_base64_png_reaches_the_model(client):
    shot = png()
    client.llm.enqueue(ANSWER)
    response = predict(client, {"base64": b64(shot)})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["action"]["name"] == PRODUCT and body["brain"] == "llm" and not body["fallback_used"]
    assert body["details"]["screenshot"] == "sent"
    assert sent_image(client.llm.requests[-1]) == shot
    as_data_url = predict(client, {"base64": "data:image/png;base64," + b64(shot)})
    assert as_data_url.status_code == 200 and sent_image(client.llm.requests[-1]) == shot


def test_the_embedded_brain_ignores_the_screenshot_and_says_so(client):
    served = client.llm.completions_served
    body = predict(client, {"base64": b64(png())}, brain="embedded").json()
    assert body["brain"] == "embedded" and client.llm.completions_served == served
    assert body["details"]["screenshot"] == "not used: the embedded brain reads the page's elements, not images"


@pytest.mark.parametrize(
    "screenshot, status, reason",
    [
        ({"base64": b64(b"<html>I am a web page</html>")}, 422, "not an image Pillow can read"),
        ({"base64": "not base64 at all!"}, 422, "not valid base64"),
        ({"base64": b64(png()[:300])}, 422, "does not decode"),
        ({"base64": b64(png(5001, 5000))}, 422, "5001x5000 pixels, over the limit of 25,000,000 pixels"),
        ({"base64": b64(png(1500, 1200, noise=True))}, 422, "over the limit of 5,000,000 bytes"),
        ({"url": "https://example.com/shot.png"}, 422, "is not on this service"),
        ({"url": "http://169.254.169.254/latest/meta-data"}, 422, "is not on this service"),
        ({"url": "file:///etc/passwd"}, 422, "is not on this service"),
        ({"url": "/etc/passwd"}, 422, "is not a simulation screenshot"),
        ({"url": "http://[::1/simulations"}, 422, "is not a URL"),
        ({"url": "http://testserver/simulations/abc/screenshots/p/../../x.png"}, 422, "is not a simulation screenshot"),
        ({"url": "/simulations/abc123/screenshots/someone/step_001.png"}, 404, "simulation 'abc123' not found"),
        ({"base64": b64(png()), "url": "/simulations/a/screenshots/b/step_001.png"}, 422, "send the screenshot once"),
    ],
)
def test_bad_screenshots_are_refused_with_the_reason_before_any_model_call(client, screenshot, status, reason):
    served = client.llm.completions_served
    response = predict(client, screenshot)
    assert response.status_code == status, response.text
    assert reason in response.text
    assert client.llm.completions_served == served


@pytest.mark.parametrize(
    "screenshot, reason",
    [
        ({"base64": b64(b"<html>I am a web page</html>")}, "not an image Pillow can read"),
        ({"base64": b64(png(5001, 5000))}, "5001x5000 pixels, over the limit of 25,000,000 pixels"),
        ({"base64": b64(png(1500, 1200, noise=True))}, "over the limit of 5,000,000 bytes"),
        ({"base64": ""}, "at least 1 character"),
    ],
)
def test_a_screenshot_the_embedded_brain_gets_is_still_checked_from_its_header(client, screenshot, reason):
    response = predict(client, screenshot, brain="embedded")
    assert response.status_code == 422 and reason in response.text


def test_the_pixels_are_decoded_only_for_a_brain_that_looks(client):
    """A PNG cut short after its header: its format and size read fine, its pixels do not. The embedded brain never
    looks at it, so nothing decodes it (16 concurrent 25 MP PNGs once took 550 MB for nothing); the LLM brain with
    vision would send it to a model, so there it is decoded first and refused."""
    cut = b64(png(3000, 3000, noise=True)[:20_000])
    embedded = predict(client, {"base64": cut}, brain="embedded")
    assert embedded.status_code == 200 and embedded.json()["details"]["screenshot"].startswith("not used")
    served = client.llm.completions_served
    looked_at = predict(client, {"base64": cut})
    assert looked_at.status_code == 422 and "does not decode" in looked_at.text
    assert client.llm.completions_served == served


def test_a_live_llm_twin_sees_each_step_and_its_screenshot_address_is_accepted_by_predict(client):
    client.llm.reset()
    with serve(create_shop_app()) as shop:
        started = client.post(
            "/simulations",
            json={
                "url": shop + "/",
                "personas": [OPERA_USER],
                "max_steps": 2,
                "brain": "llm",
                "screenshots": True,
                "grounding": "both",
            },
        )
        assert started.status_code == 202, started.text
        job_id = started.json()["id"]
        deadline = time.monotonic() + 120
        while (body := client.get(f"/simulations/{job_id}").json())["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, body
            time.sleep(0.5)
    assert body["status"] == "done", body["error"]
    [step] = body["traces"][0]["steps"]  # the server's default answer is terminate
    assert step["brain"] == "llm" and step["screenshot"] == f"screenshots/{OPERA_USER}/step_001.png"
    address = f"/simulations/{job_id}/{step['screenshot']}"
    served = client.get(address)
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    # The model saw the very page the twin decided on, with the elements numbered on it (boxes from the live page).
    sent = Image.open(io.BytesIO(sent_image(client.llm.requests[0]))).convert("RGB")
    saved = Image.open(io.BytesIO(served.content)).convert("RGB")
    assert sent.size == saved.size == (1280, 900)
    colours_sent = {colour for _, colour in sent.getcolors(1 << 24)}
    colours_saved = {colour for _, colour in saved.getcolors(1 << 24)}
    assert len(colours_sent & set(PALETTE)) >= 3 and not colours_saved & set(PALETTE)
    prompt = client.llm.requests[0]["messages"][1]["content"][0]["text"]
    assert "Elements you can act on, numbered (choice | name" in prompt and "\n[1] " in prompt

    client.llm.enqueue(ANSWER, ANSWER)
    for url in (address, "http://testserver" + address):
        response = predict(client, {"url": url})
        assert response.status_code == 200, response.text
        assert sent_image(client.llm.requests[-1]) == served.content
    assert client.get(f"/simulations/{job_id}/screenshots/{OPERA_USER}/step_009.png").status_code == 404


def test_twinsim_predict_takes_a_screenshot_file_and_refuses_a_bad_one_first(tmp_path, opera_dir):
    from typer.testing import CliRunner

    from service.cli.main import app as cli
    from tests.support.openai_server import OpenAICompatibleServer

    runner = CliRunner()
    env = {"TWINSIM_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "TWINSIM_LLM_RETRIES": "0"}
    (tmp_path / "page.html").write_text("<html>not a picture</html>")
    for path, reason in (
        (tmp_path / "page.html", "not an image Pillow can read"),
        (tmp_path / "missing.png", "No such file"),
    ):
        result = runner.invoke(cli, ["predict", "--persona", OPERA_USER, "--screenshot", str(path)], env=env)
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and reason in said and "Traceback" not in result.output, result.output
    assert not (tmp_path / "data").exists()  # refused before any store was opened

    shot = tmp_path / "shot.png"
    shot.write_bytes(png())
    (tmp_path / "results.html").write_text(page("search_results.html"))
    assert runner.invoke(cli, ["personas", "import", str(opera_dir / "users_sample.csv")], env=env).exit_code == 0
    with OpenAICompatibleServer(default_reply=ANSWER) as server:
        result = runner.invoke(
            cli,
            [
                "predict",
                "--persona",
                OPERA_USER,
                "--brain",
                "llm",
                "--model",
                "openai/twin-test",
                "--page",
                str(tmp_path / "results.html"),
                "--screenshot",
                str(shot),
                "--vision",
                "always",
                "--json",
            ],
            env={**env, "TWINSIM_LLM_API_BASE": server.base_url},
        )
        assert result.exit_code == 0, result.output
        assert sent_image(server.requests[0]) == shot.read_bytes()
    assert json.loads(result.output)["details"]["screenshot"] == "sent"
