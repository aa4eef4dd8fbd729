"""The LLM brain sees the page: the screenshot reaches the model through litellm as an image part over real HTTP (the
loopback OpenAI-compatible server records each request body), and SeeAct's grounding strategies (Zheng et al. 2024,
arXiv 2401.01614) number the elements in the text, on the picture (set-of-marks), or both. An answer naming a
choice is grounded to its element; a choice that does not exist is retried once with the valid ones, then the
embedded brain answers and the prediction says so."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from agent.brains.embedded import EmbeddedBrain
from agent.brains.llm import LLMBrain
from agent.graph import TwinGraph
from agent.llm.client import LLMClient
from agent.llm.prompts import SYSTEM_PROMPT, SYSTEM_PROMPTS
from agent.llm.set_of_marks import OUTLINE_PX, mark_colour
from agent.page.candidate import Candidate
from agent.page.observation import Observation
from agent.predict_options import PredictOptions
from agent.prediction_input import PredictionInput, ResolvedInput
from agent.screenshots import Screenshot, ScreenshotRefused, decode_base64, read_screenshot
from agent.twin_context import TwinContext
from personas.persona import Persona

MODEL = "openai/twin-test"  # litellm does not know it: it takes images only with vision "always"
WIDTH, HEIGHT = 1280, 800

CANDIDATES = (
    Candidate("nav_bar.search_input", "input", "input", "Search Amazon", "search", 0, bbox=(300, 20, 400, 30)),
    Candidate("nav_bar.search_button", "clickable", "input", "Go", "search", 1, bbox=(720, 20, 50, 30)),
    Candidate(
        "search_results.anker_usb_c_cable.product_name",
        "clickable",
        "a",
        "Anker USB C Cable",
        "product_link",
        2,
        9.99,
        bbox=(100, 300, 500, 40),
    ),
    Candidate("footer.careers", "clickable", "a", "Careers", "other", 3),  # no box: not on the picture
    Candidate("footer.far_below", "clickable", "a", "Far below", "other", 4, bbox=(100, 5000, 200, 20)),  # off-picture
)
PAGE = Observation(
    url="https://www.amazon.com/s?k=usb+c+cable",
    page_type="search_results",
    title="Amazon.com : usb c cable",
    candidates=CANDIDATES,
    by_name={c.name: c for c in CANDIDATES},
    text="Results for usb c cable",
)


def png(width: int = WIDTH, height: int = HEIGHT, colour=(255, 255, 255)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


def answer(action: dict, rationale: str = "That is the one I want.") -> str:
    return json.dumps({"rationale": rationale, "action": action})


def brain(server, **kwargs) -> LLMBrain:
    client = LLMClient(api_base=server.base_url, timeout_s=5.0, retries=0)
    return LLMBrain(client, default_model=MODEL, **kwargs)


def context(screenshot: Screenshot | None = None) -> TwinContext:
    persona = Persona(id="user_1", self_description="I hunt for deals.")
    return TwinContext.on_page(persona, PAGE, PredictionInput(screenshot=screenshot))


def image_parts(request: dict) -> list[dict]:
    content = request["messages"][1]["content"]
    return [p for p in content if p.get("type") == "image_url"] if isinstance(content, list) else []


def user_text(request: dict) -> str:
    content = request["messages"][1]["content"]
    return content if isinstance(content, str) else "\n".join(p["text"] for p in content if p.get("type") == "text")


def decoded(part: dict) -> Image.Image:
    url = part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


# --- the screenshot goes to the model -------------------------------------------------------------------------


async def test_the_screenshot_reaches_the_model_as_an_image_part(llm_server):
    shot = read_screenshot(png())
    llm_server.enqueue(answer({"type": "click", "name": "nav_bar.search_button"}))
    decision = await brain(llm_server, vision="always").decide(context(screenshot=shot))

    [request] = llm_server.requests
    [part] = image_parts(request)
    assert part == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(shot.data).decode()},
    }
    assert (
        request["messages"][0]["content"] == SYSTEM_PROMPTS[(False, True)] != SYSTEM_PROMPT
    )  # says: the picture is data
    assert "nav_bar.search_button | click | search | Go" in user_text(request)  # the names list is still there
    assert decision.details["screenshot"] == "sent" and decision.details["grounding"] == "names"


async def test_a_model_litellm_does_not_know_to_take_images_gets_none_and_the_decision_says_why(llm_server):
    llm_server.enqueue(answer({"type": "terminate"}))
    decision = await brain(llm_server).decide(context(screenshot=read_screenshot(png())))  # vision "auto"
    assert image_parts(llm_server.requests[0]) == []
    assert llm_server.requests[0]["messages"][0]["content"] == SYSTEM_PROMPT
    assert decision.details["screenshot"].startswith(
        "not sent: openai/twin-test is not known to litellm to take images"
    )


# --- grounding strategies -------------------------------------------------------------------------------------


async def test_textual_choices_number_the_elements_and_a_number_is_grounded_to_its_element(llm_server):
    llm_server.enqueue(answer({"type": "click", "choice": 3}))
    decision = await brain(llm_server, grounding="textual_choices").decide(context())

    text = user_text(llm_server.requests[0])
    assert "[1] nav_bar.search_input | input | search | Search Amazon" in text
    # the title is left out: the name already spells it (agent/llm/page_block.py)
    assert "[3] search_results.anker_usb_c_cable.product_name | click | product_link |  | $9.99" in text
    assert "[6] leave the site (end the session)" in text  # the multiple choice's last option
    assert "one last option, numbered after them, to leave the site" in llm_server.requests[0]["messages"][0]["content"]
    assert decision.action.name == "search_results.anker_usb_c_cable.product_name"
    assert decision.details["choice"] == 3 and decision.details["grounding"] == "textual_choices"


async def test_set_of_marks_draws_numbered_boxes_on_the_screenshot_and_lists_no_elements(llm_server):
    llm_server.enqueue(answer({"type": "input", "choice": "1", "text": "usb c cable"}))
    decision = await brain(llm_server, grounding="set_of_marks", vision="always").decide(
        context(screenshot=read_screenshot(png()))
    )

    request = llm_server.requests[0]
    text = user_text(request)
    assert "marked on the screenshot with numbered boxes (3 of them, numbered 1-3)" in text
    assert "nav_bar.search_input |" not in text  # no list: the picture is the only way to choose
    marked = decoded(image_parts(request)[0])
    assert marked.size == (WIDTH, HEIGHT)
    # Marks 1-3 are the three elements with a box inside the picture, in page order; each box's left edge, half
    # way down, is drawn in that mark's colour, and the untouched page stays white.
    for number, candidate in enumerate(CANDIDATES[:3], start=1):
        x, y, w, h = candidate.bbox
        assert marked.getpixel((int(x) + OUTLINE_PX // 2, int(y + h / 2))) == mark_colour(number), number
        assert marked.getpixel((int(x + w / 2), int(y + h / 2))) == (255, 255, 255)
    assert mark_colour(1) != mark_colour(2)
    assert decision.action.model_dump() == {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"}
    assert decision.details["screenshot"] == "sent, 3 elements marked with numbered boxes"
    assert decision.details["grounding"] == "set_of_marks"


async def test_both_lists_every_element_numbered_and_marks_those_with_a_box_by_the_same_number(llm_server):
    llm_server.enqueue(answer({"type": "click", "choice": 4}))
    decision = await brain(llm_server, grounding="both", vision="always").decide(
        context(screenshot=read_screenshot(png()))
    )

    request = llm_server.requests[0]
    assert "\n[4] footer.careers | click | other\n" in user_text(request)  # "Careers" is the name's own word
    marked = decoded(image_parts(request)[0])
    x, y, _, h = CANDIDATES[2].bbox
    assert marked.getpixel((int(x) + 1, int(y + h / 2))) == mark_colour(3)
    assert decision.action.name == "footer.careers" and decision.details["choice"] == 4


async def test_set_of_marks_without_a_screenshot_numbers_the_list_and_says_so(llm_server):
    llm_server.enqueue(answer({"type": "click", "choice": 2}))
    decision = await brain(llm_server, grounding="set_of_marks").decide(context())
    assert "[2] nav_bar.search_button" in user_text(llm_server.requests[0])
    assert decision.details["grounding"] == "textual_choices"
    assert "no screenshot went to the model" in decision.details["grounding_note"]
    assert decision.action.name == "nav_bar.search_button"


# --- a choice that does not exist: once more, then the embedded brain ------------------------------------------


def graph_for(server) -> TwinGraph:
    return TwinGraph({"embedded": EmbeddedBrain(), "llm": brain(server)}, memory=None)


async def test_a_nonexistent_choice_is_retried_once_with_the_valid_choices(llm_server):
    llm_server.enqueue(answer({"type": "click", "choice": 99}), answer({"type": "click", "choice": 2}))
    prediction = await graph_for(llm_server).predict(
        PredictionInput(brain="llm", model=MODEL, options=PredictOptions(grounding="textual_choices")),
        ResolvedInput(observation=PAGE),
    )
    assert prediction.action.name == "nav_bar.search_button" and prediction.brain == "llm"
    assert prediction.attempts == 2 and not prediction.fallback_used
    retry = llm_server.requests[1]["messages"][-1]["content"]
    assert "choice 99 does not exist; the choices are 1-5" in retry
    assert "one of the choices by its number (1-5)" in retry


async def test_a_nonexistent_choice_twice_falls_back_to_the_embedded_brain_and_says_so(llm_server):
    llm_server.enqueue(answer({"type": "click", "choice": 7}), answer({"type": "click", "choice": "[12]"}))
    prediction = await graph_for(llm_server).predict(
        PredictionInput(
            brain="llm",
            model=MODEL,
            screenshot=read_screenshot(png()),
            options=PredictOptions(grounding="set_of_marks", vision="always"),
        ),
        ResolvedInput(observation=PAGE),
    )
    assert prediction.fallback_used and prediction.brain == "embedded" and prediction.requested_brain == "llm"
    assert prediction.attempts == 2 and llm_server.completions_served == 2
    assert "choice 12 does not exist; the choices are 1-3" in prediction.fallback_reason
    assert prediction.action.type == "terminate" or prediction.action.name in PAGE.by_name
    assert prediction.usage.calls == 2
    assert prediction.details["screenshot"] == "not used: the embedded brain reads the page's elements, not images"


# --- what counts as a screenshot ------------------------------------------------------------------------------


def test_only_decodable_png_jpeg_and_webp_within_the_caps_are_screenshots():
    for kind in ("PNG", "JPEG", "WEBP"):
        out = io.BytesIO()
        Image.new("RGB", (64, 48), (10, 20, 30)).save(out, format=kind)
        shot = read_screenshot(out.getvalue())
        assert (shot.width, shot.height, shot.mime) == (64, 48, f"image/{kind.lower()}")
    gif = io.BytesIO()
    Image.new("RGB", (8, 8)).save(gif, format="GIF")
    cases = [
        (b"", "empty"),
        (b"<html>not an image</html>", "not an image"),
        (gif.getvalue(), "GIF, not PNG"),
        (png()[:400], "does not decode"),
        (png(5000, 5001), "over the limit of 25,000,000 pixels"),
        (png() + b"\0" * 5_000_001, "over the limit of 5,000,000"),
    ]
    for data, reason in cases:
        with pytest.raises(ScreenshotRefused, match=reason):
            read_screenshot(data)
    with pytest.raises(ScreenshotRefused, match="not valid base64"):
        decode_base64("this is not base64!!")
    assert decode_base64("data:image/png;base64," + base64.b64encode(png(10, 10)).decode()).width == 10
