"""Where each element a twin may choose sits in the viewport, read from the live page in one call, so that the
LLM brain can draw numbered boxes on the step's screenshot (set-of-marks, agent/llm/set_of_marks.py).

The boxes are the elements' client rectangles: the viewport's own pixels, the ones Playwright's (viewport)
screenshot is taken in. An element out of view keeps its box; the drawing leaves out what is not in the picture.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from agent.browser.snapshot import MARK, PageSnapshot
from agent.page.observation import Observation

if TYPE_CHECKING:
    from playwright.async_api import Page

_READ_BOXES = """
([mark, markers]) => markers.map((marker) => {
  if (!marker) return null;
  const el = document.querySelector('[' + mark + '="' + marker + '"]');
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return (r.width > 0 && r.height > 0) ? [r.x, r.y, r.width, r.height] : null;
})
"""


async def with_element_boxes(page: Page, snapshot: PageSnapshot) -> Observation:
    """The snapshot's page with each element's box in the viewport (None where it has none)."""
    observation = snapshot.observation
    markers = [snapshot.marker(candidate.name) for candidate in observation.candidates]
    boxes = await page.evaluate(_READ_BOXES, [MARK, markers])
    candidates = tuple(
        dataclasses.replace(candidate, bbox=tuple(box) if box else None)
        for candidate, box in zip(observation.candidates, boxes, strict=True)
    )
    return dataclasses.replace(observation, candidates=candidates, by_name={c.name: c for c in candidates})
