"""Set-of-marks: numbered boxes drawn on the screenshot around the elements a model may choose, so it can name
an element by the number it sees (SeeAct's image-annotation grounding, Zheng et al. 2024, arXiv 2401.01614).

Boxes are in the page's pixels, as Mind2Web's `bounding_box_rect` gives them for its full-page screenshots; a
box that falls outside the picture is not drawn (its element cannot be chosen by mark). Colours cycle through a
small palette so neighbouring boxes can be told apart; the number sits in a filled tag at the box's corner.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Pillow is imported where marks are drawn
    from PIL import ImageFont

from agent.screenshots import Screenshot

# Saturated colours that rarely occur on shop pages, each dark enough for white digits.
PALETTE: tuple[tuple[int, int, int], ...] = (
    (230, 25, 75),
    (0, 130, 200),
    (60, 150, 40),
    (145, 30, 180),
    (245, 110, 20),
    (0, 128, 128),
    (170, 110, 40),
    (128, 0, 0),
)
OUTLINE_PX = 3
TAG_FONT_PX = 14

Box = tuple[float, float, float, float]  # x, y, width, height


def mark_colour(number: int) -> tuple[int, int, int]:
    """The colour of mark `number` (1-based), the same on every drawing."""
    return PALETTE[(number - 1) % len(PALETTE)]


def visible_box(box: Box | None, width: int, height: int) -> tuple[int, int, int, int] | None:
    """The box as pixel corners (left, top, right, bottom) clipped to the picture; None when it is not in it
    or has no area."""
    if box is None:
        return None
    x, y, w, h = box
    if w <= 0 or h <= 0:
        return None
    left, top = max(0, round(x)), max(0, round(y))
    right, bottom = min(width - 1, round(x + w)), min(height - 1, round(y + h))
    if right - left < 2 or bottom - top < 2:
        return None
    return left, top, right, bottom


@lru_cache(maxsize=1)
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=TAG_FONT_PX)  # Pillow's bundled TrueType font, when FreeType is there
    except (TypeError, OSError):  # pragma: no cover - an old Pillow or one built without FreeType
        return ImageFont.load_default()


def draw_marks(screenshot: Screenshot, marks: Sequence[tuple[int, Box]]) -> tuple[Screenshot, list[int]]:
    """A PNG copy of the screenshot with each (number, box) drawn, and the numbers that were drawn."""
    from PIL import Image, ImageDraw

    image = Image.open(io.BytesIO(screenshot.data)).convert("RGB")
    draw = ImageDraw.Draw(image)
    font = _font()
    drawn: list[int] = []
    for number, box in marks:
        corners = visible_box(box, image.width, image.height)
        if corners is None:
            continue
        colour = mark_colour(number)
        left, top = corners[0], corners[1]
        draw.rectangle(corners, outline=colour, width=OUTLINE_PX)
        label = str(number)
        text_left, text_top, text_right, text_bottom = draw.textbbox((0, 0), label, font=font)
        tag_w, tag_h = text_right - text_left + 6, text_bottom - text_top + 4
        tag_top = top - tag_h if top - tag_h >= 0 else top  # above the box, or inside it at the top edge
        draw.rectangle((left, tag_top, left + tag_w, tag_top + tag_h), fill=colour)
        draw.text((left + 3 - text_left, tag_top + 2 - text_top), label, fill=(255, 255, 255), font=font)
        drawn.append(number)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)  # about half the time of the default level, ~20% more bytes
    return Screenshot(data=out.getvalue(), mime="image/png", width=image.width, height=image.height), drawn
