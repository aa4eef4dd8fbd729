"""Reading a live page the way a twin reads it: mark every DOM element, copy only what is rendered, and
simplify that copy with a source map, so each name the twin may choose points back to its live element.

The copy is made in the page (one `evaluate` call): elements the browser does not render (hidden by a
stylesheet, collapsed `<details>`, closed menus) are left out, and form fields carry their current
values (text, ticks, the chosen option of a drop-down). This is what the raw-HTML simplifier cannot know
on its own: it evaluates no CSS.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from playwright.async_api import Page

from agent.browser.failures import StepFailure
from agent.page.observation import Observation
from agent.page.parse import parse_page
from agent.page.simplifier import SimplifiedPage, simplify_html

MARK = "data-twinsim-node"

_READ_RENDERED_DOM = """
([mark, prefix]) => {
  const skip = new Set(['OPTION', 'OPTGROUP', 'SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'BR', 'WBR']);
  const unseen = [];  // visibility first, on the page's clean styles: marking first would make them all dirty
  if (document.body && typeof document.body.checkVisibility === 'function') {
    for (const el of document.body.querySelectorAll('*')) {
      if (skip.has(el.tagName) || (el.parentElement && el.parentElement.closest('select, svg'))) continue;
      if (!el.checkVisibility({visibilityProperty: true}) && getComputedStyle(el).display !== 'contents') {
        unseen.push(el);
      }
    }
  }
  let count = 0;
  for (const el of document.documentElement.querySelectorAll('*')) el.setAttribute(mark, prefix + (count++));
  const hidden = unseen.map((el) => el.getAttribute(mark));
  const copy = document.documentElement.cloneNode(true);
  const byMark = new Map();
  for (const el of copy.querySelectorAll('[' + mark + ']')) byMark.set(el.getAttribute(mark), el);
  for (const el of document.querySelectorAll('input, textarea')) {
    const twin = byMark.get(el.getAttribute(mark));
    if (!twin) continue;
    if (el.type === 'checkbox' || el.type === 'radio') el.checked ? twin.setAttribute('checked', '') : \
twin.removeAttribute('checked');
    else if (el.tagName === 'INPUT') twin.setAttribute('value', el.value);
    else twin.textContent = el.value;
  }
  for (const el of document.querySelectorAll('option')) {
    const twin = byMark.get(el.getAttribute(mark));
    if (twin) el.selected ? twin.setAttribute('selected', '') : twin.removeAttribute('selected');
  }
  for (const id of hidden) { const twin = byMark.get(id); if (twin) twin.remove(); }
  return {html: '<!DOCTYPE html>' + copy.outerHTML, elements: count, hidden: hidden.length};
}
"""


@dataclass(frozen=True, slots=True)
class PageSnapshot:
    """One reading of the live page."""

    url: str
    title: str
    simplified: SimplifiedPage
    observation: Observation
    elements: int  # DOM elements marked
    hidden: int  # of which not rendered (left out)

    def marker(self, name: str) -> str | None:
        return self.simplified.sources.get(name)

    def text(self) -> str:
        """All the visible text the twin could read (the Observation keeps only its start)."""
        from selectolax.lexbor import LexborHTMLParser

        body = LexborHTMLParser(self.simplified.html).body
        return body.text(deep=True, separator=" ") if body is not None else ""


class SnapshotTaker:
    """Numbers its readings, so a marker from an earlier reading never matches an element re-marked later.
    `timeout_s`: how long a reading may take; a page held by a navigation that never arrives blocks a reading until
    it does, so past that it is a `timeout` failure, not a wait for the site."""

    def __init__(self, timeout_s: float | None = None) -> None:
        self.count = 0
        self.timeout_s = timeout_s

    async def take(self, page: Page) -> PageSnapshot:
        self.count += 1
        try:
            rendered = await asyncio.wait_for(
                page.evaluate(_READ_RENDERED_DOM, [MARK, f"s{self.count}-"]), self.timeout_s
            )
        except TimeoutError:
            raise StepFailure("timeout", f"could not read {page.url} within {self.timeout_s:g} s") from None
        url = page.url
        simplified = await asyncio.to_thread(simplify_html, rendered["html"], url, source_attribute=MARK)
        observation = parse_page(simplified.html, url=url)
        return PageSnapshot(
            url=url,
            title=observation.title,
            simplified=simplified,
            observation=observation,
            elements=rendered["elements"],
            hidden=rendered["hidden"],
        )


def selector_for(marker: str) -> str:
    return f'[{MARK}="{marker}"]'
