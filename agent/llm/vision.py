"""Whether a model is shown the screenshot, and the image part that carries it.

    auto    when litellm's model map says the model takes images (litellm.supports_vision)
    always  whenever there is a screenshot (a local vision model litellm does not know; the tests' server)
    never   not at all

The image goes as an OpenAI-style content part, {"type": "image_url", "image_url": {"url": "data:...;base64,..."}},
which litellm translates for every provider it supports.
"""

from __future__ import annotations

from agent.llm.offline_litellm import load_litellm
from agent.predict_options import VisionPolicy
from agent.screenshots import Screenshot


def model_takes_images(model: str) -> bool:
    """litellm's own word, from the model map inside the package (never fetched); unknown models: False."""
    try:
        return bool(load_litellm().supports_vision(model=model))
    except Exception:  # noqa: BLE001 - an unmapped or malformed name: not known to take images
        return False


def shows_screenshot(model: str, policy: VisionPolicy) -> tuple[bool, str | None]:
    """(send it?, why not when not)."""
    if policy == "never":
        return False, "vision is off (vision: never)"
    if policy == "always" or model_takes_images(model):
        return True, None
    return False, (
        f"{model} is not known to litellm to take images; set vision: always "
        "(TWINSIM_LLM_VISION=always, --vision always) to send it anyway"
    )


def image_part(screenshot: Screenshot) -> dict:
    return {"type": "image_url", "image_url": {"url": screenshot.data_url()}}


def with_image(messages: list[dict], screenshot: Screenshot, caption: str) -> list[dict]:
    """The messages with the screenshot (and a line saying what it is) added to the first user message."""
    out: list[dict] = []
    added = False
    for message in messages:
        if not added and message.get("role") == "user" and isinstance(message.get("content"), str):
            message = {
                **message,
                "content": [
                    {"type": "text", "text": message["content"]},
                    {"type": "text", "text": caption},
                    image_part(screenshot),
                ],
            }
            added = True
        out.append(message)
    return out
