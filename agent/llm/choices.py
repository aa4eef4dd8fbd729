"""How the model names the element it acts on (grounding), as SeeAct compares it (Zheng et al. 2024, arXiv
2401.01614), plus twinsim's own way:

    names            the element list shows each element's name; the model copies it (twinsim's default)
    textual_choices  the element list is numbered; the model answers with a number (SeeAct's best published)
    set_of_marks     numbered boxes on the screenshot around elements with a known box; no list: the model
                     answers with the number it sees
    both             the numbered list and the same numbers drawn on the screenshot

With numbers the answer is a multiple choice, as in SeeAct: one more option after the page's elements is leaving
the site, so the action's type follows from the option picked (an element to click, a text field with the text
typed, a drop-down with one of its options, or leaving) instead of from a type word the model writes first, which a
small model under a grammar always wrote as "click" (agent/llm/answer_schema.py).

A number is turned back into its element here, so the rest of the graph grounds a real name as always; a number
that is not one of the choices is a grounding error whose message lists the valid ones (one retry, then the
embedded brain answers: agent/graph.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent.actions import Action, ClickAction, InputAction, TerminateAction
from agent.llm.set_of_marks import visible_box
from agent.page.candidate import Candidate
from agent.page.observation import Observation
from agent.predict_options import GroundingStrategy

# "3", "[3]", "#3", "(3)", "choice 3", "mark 3", "element 3", "option 3"
_NUMBER = re.compile(
    r"^\s*(?:(?:choice|mark|element|option|box|number)\s*)?[\[(#]?\s*(\d{1,4})\s*[\])]?\s*\.?\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class ChoiceSet:
    """The numbered elements of one prompt. `listed`: the numbered list is in the text; `marked`: the numbers
    are drawn on the screenshot (only the elements in `numbers` with a box in the picture)."""

    strategy: GroundingStrategy
    numbers: dict[int, Candidate]
    listed: bool
    marked: bool

    @property
    def leave(self) -> int:
        """The option that leaves the site: the number after the last element's."""
        return max(self.numbers, default=0) + 1

    def valid_text(self) -> str:
        """The elements' numbers, as ranges: "1-12" or "1-4, 7, 9-10"."""
        return number_ranges(sorted(self.numbers))

    def leave_text(self) -> str:
        return f"{self.leave} to leave the site"

    def ground(self, action: Action, observation: Observation) -> tuple[Action, str | None, int | None]:
        """(the action on the chosen element, None, the number), or (the action unchanged, why it names no
        choice, None). The leave option is a terminate whatever the answer's type said; an exact element name of a
        listed element is taken as it is."""
        if action.type == "terminate":
            return action, None, None
        match = _NUMBER.match(action.name)
        if match is None:
            if self.listed and action.name in observation.by_name:
                return action, None, None
            return (
                action,
                (f"'{action.name}' is not the number of a choice; answer with one of the numbers {self.valid_text()}"),
                None,
            )
        number = int(match.group(1))
        if number == self.leave:
            return TerminateAction(), None, number
        candidate = self.numbers.get(number)
        if candidate is None:
            return (
                action,
                f"choice {number} does not exist; the choices are {self.valid_text()}, or {self.leave_text()}",
                None,
            )
        if isinstance(action, InputAction):
            return InputAction(name=candidate.name, text=action.text), None, number
        return ClickAction(name=candidate.name), None, number


def number_ranges(numbers: Sequence[int]) -> str:
    if not numbers:
        return "(none)"
    parts: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(parts)


def number_choices(
    shown: Sequence[Candidate], strategy: GroundingStrategy, image_size: tuple[int, int] | None
) -> tuple[ChoiceSet | None, str | None]:
    """The choices for `shown` (the elements the prompt shows, in order) under `strategy`, and a note when the
    strategy had to give way: set-of-marks needs a screenshot the model sees and elements with boxes in it;
    without them the numbered list is used instead. None for the names strategy."""
    if strategy == "names":
        return None, None
    numbered = dict(enumerate(shown, start=1))
    if strategy == "textual_choices":
        return ChoiceSet("textual_choices", numbered, listed=True, marked=False), None
    if image_size is None:
        note = f"{strategy}: no screenshot went to the model, so the elements are numbered in the text only"
        return ChoiceSet("textual_choices", numbered, listed=True, marked=False), note
    boxed = [c for c in shown if visible_box(c.bbox, *image_size) is not None]
    if not boxed:
        note = f"{strategy}: no element has a box inside the screenshot, so the elements are numbered in the text only"
        return ChoiceSet("textual_choices", numbered, listed=True, marked=False), note
    if strategy == "both":
        return ChoiceSet("both", numbered, listed=True, marked=True), None
    return ChoiceSet("set_of_marks", dict(enumerate(boxed, start=1)), listed=False, marked=True), None
