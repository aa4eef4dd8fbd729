"""Filling a checkout form with TEST details when a twin has decided to go on with its order.

When the twin clicks a purchase-type control (Continue, Place order) on a checkout page, the form that control
submits is read on the live page and its required fields that are still empty get the simulation's test
details (agent.simulation.checkout_details), recognised by what the field says it wants
(agent.browser.form_fields). A person at a checkout types their details before pressing Continue; a twin
has none of its own, so it enters labelled made-up ones, as UX-testing tools do. Which fields were filled is
recorded on the step, so nobody mistakes them for the person's data.

The twin still decides every step; this only types what the form needs for the step the twin chose. Never
filled: passwords (a twin has no account), payment cards, fields nothing recognises (they are listed as left
empty, and the shop's own validation answers as it would a person). Where a form offers checking out as a
guest, that is chosen: a twin has no account to sign in with.
"""

from __future__ import annotations

from collections.abc import Awaitable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from agent.browser.form_fields import field_kind
from agent.browser.snapshot import MARK, PageSnapshot, selector_for
from agent.simulation.checkout_details import FilledField

FILL_TIMEOUT_MS = 2_000
_GUEST = ("guest",)
# Values a drop-down shows when nothing is chosen yet.
_PLACEHOLDER_VALUES = frozenset({"", "0", "-", "none", "select", "choose"})

_READ_FORM = """
(control, mark) => {
  const form = control.form || control.closest('form');
  if (!form) return [];
  const labelOf = (el) => {
    const own = [...(el.labels || [])].map(l => l.innerText).join(' ').trim();
    return own || el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.getAttribute('title') || '';
  };
  const fields = [];
  for (const el of form.elements) {
    if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName) || !el.getAttribute(mark)) continue;
    const type = (el.type || '').toLowerCase();
    if (['hidden', 'submit', 'button', 'image', 'reset', 'file'].includes(type) || el.disabled || el.readOnly) continue;
    const shown = typeof el.checkVisibility !== 'function' || el.checkVisibility({visibilityProperty: true})
      || ((type === 'radio' || type === 'checkbox') && el.labels && el.labels.length > 0);
    if (!shown) continue;
    const label = labelOf(el);
    fields.push({
      mark: el.getAttribute(mark), tag: el.tagName.toLowerCase(), type, name: el.name || '', id: el.id || '',
      autocomplete: el.getAttribute('autocomplete') || '', label,
      required: el.required || el.getAttribute('aria-required') === 'true' || /\\*\\s*$/.test(label)
        || /\\(required\\)/i.test(label),
      value: el.value || '', checked: !!el.checked,
      options: el.tagName === 'SELECT' ? [...el.options].map(o => [o.value, o.text.trim()]) : null,
    });
  }
  return fields;
}
"""


async def fill_checkout_form(
    page: Page, snapshot: PageSnapshot, control_name: str, values: dict[str, str]
) -> list[FilledField]:
    """Fill the required empty fields of the form `control_name` submits; returns what was filled (and which
    required fields were left empty). A field that cannot be filled is noted, never raised: the click goes ahead."""
    marker = snapshot.marker(control_name)
    if marker is None:
        return []
    control = page.locator(selector_for(marker))
    try:
        if await control.count() != 1:
            return []
        fields = await control.evaluate(_READ_FORM, MARK)
    except PlaywrightError:
        return []
    names = {source: name for name, source in snapshot.simplified.sources.items()}
    done: list[FilledField] = []
    radio_groups: dict[str, list[dict]] = {}
    for field in fields:
        if field["type"] == "radio":
            radio_groups.setdefault(field["name"] or field["mark"], []).append(field)
            continue
        outcome = await _fill_one(page, field, values)
        if outcome is not None:
            done.append(outcome.model_copy(update={"name": names.get(field["mark"])}))
    for group in radio_groups.values():
        outcome = await _choose_radio(page, group, names)
        if outcome is not None:
            done.append(outcome)
    return done


async def _fill_one(page: Page, field: dict, values: dict[str, str]) -> FilledField | None:
    label = field["label"] or field["name"] or field["id"] or field["tag"]
    kind = field_kind(field["type"], field["autocomplete"], field["label"], field["name"], field["id"])
    locator = page.locator(selector_for(field["mark"]))
    if field["type"] == "checkbox":
        if not field["required"] or field["checked"]:
            return None
        return await _act(locator.check(timeout=FILL_TIMEOUT_MS), label, "checkbox", "the form requires it", "ticked")
    if field["tag"] == "select":
        if field["value"].strip().lower() not in _PLACEHOLDER_VALUES or not (field["required"] or kind == "country"):
            return None
        option = _option_for(field["options"], values.get(kind or "", ""))
        if option is None:
            return FilledField(label=label, kind=kind, note="required drop-down with nothing to choose")
        value, text = option
        return await _act(locator.select_option(value=value, timeout=FILL_TIMEOUT_MS), label, kind, None, text)
    if field["value"].strip() or not field["required"]:
        return None
    if field["type"] == "password":
        return FilledField(label=label, kind="password", note="a twin has no account: passwords are never entered")
    if kind is None or kind not in values:
        return FilledField(label=label, kind=kind, note="required, but nothing says what it wants: left empty")
    return await _act(locator.fill(values[kind], timeout=FILL_TIMEOUT_MS), label, kind, None, values[kind])


async def _act(
    action: Awaitable[object], label: str, kind: str | None, note: str | None, value: str | None = None
) -> FilledField:
    try:
        await action
    except PlaywrightError as error:
        return FilledField(label=label, kind=kind, note=f"could not be filled: {str(error).splitlines()[0]}")
    return FilledField(label=label, kind=kind, value=value, note=note)


def _option_for(options: list[list[str]], wanted: str) -> tuple[str, str] | None:
    """The option that says `wanted` (by text or value, any case), else the first real one."""
    real = [(value, text) for value, text in options if value.strip().lower() not in _PLACEHOLDER_VALUES]
    folded = wanted.strip().lower()
    for value, text in real:
        if folded and folded in (text.lower(), value.lower()):
            return value, text
    return real[0] if real else None


async def _choose_radio(page: Page, group: list[dict], names: dict[str, str]) -> FilledField | None:
    """Checking out as a guest where the form offers it; else, for a required group with nothing chosen, the
    first choice."""
    guest = next((f for f in group if any(word in f["label"].lower() for word in _GUEST)), None)
    chosen = next((f for f in group if f["checked"]), None)
    if guest is not None:
        if guest["checked"]:
            return None
        target, note = guest, "checking out as a guest: a twin has no account"
    elif chosen is None and any(f["required"] for f in group):
        target, note = group[0], "the first choice (the form requires one)"
    else:
        return None
    outcome = await _act(
        page.locator(selector_for(target["mark"])).check(timeout=FILL_TIMEOUT_MS),
        target["label"] or target["name"],
        "choice",
        note,
        target["label"] or target["value"],
    )
    return outcome.model_copy(update={"name": names.get(target["mark"])})
