"""The `llm` brain: any chat model through litellm decides the twin's next action and says why.

Grounding (is the chosen name on this page?) is the graph's job, not this brain's: this brain only turns the
context into a prompt, the answer into a Decision, and every failure into BrainError so the graph can fall back
to the embedded brain. When the model answers with a choice's number (a grounding strategy other than names,
agent/llm/choices.py), the number is turned back into its element here, and a number that is not a choice is
passed on as a grounding error naming the valid ones.

What it is configured with (prompt style, grounding strategy, when to show the screenshot) can be overridden per
prediction (PredictOptions); the decision's details say what was used, and why a screenshot was not sent.
"""

from __future__ import annotations

import asyncio

from agent.brains.names import BrainName
from agent.decision import BrainError, Decision, TwinContext
from agent.llm.choices import ChoiceSet, number_choices
from agent.llm.client import LLMCallError, LLMClient
from agent.llm.opera_protocol import PROTOCOL_STYLES, protocol_messages
from agent.llm.page_block import DEFAULT_CANDIDATE_TOKEN_BUDGET, choose_candidates
from agent.llm.parsing import parse_decision_text
from agent.llm.prompts import build_messages, ranking_query
from agent.llm.set_of_marks import draw_marks
from agent.llm.vision import shows_screenshot, with_image
from agent.options import GroundingStrategy, PredictOptions, PromptStyle, VisionPolicy

SCREENSHOT_CAPTION = "The screenshot of the page in front of you:"
MARKED_CAPTION = "The screenshot of the page in front of you, with numbered boxes around the elements you can choose:"
PROTOCOL_NO_IMAGE = "not sent: the OPeRA protocol gives the model no image"


def _parses(text: str) -> bool:
    try:
        parse_decision_text(text)
    except ValueError:
        return False
    return True


class LLMBrain:
    """Prompt -> LLMClient -> parsed Decision. `mode="sample"` raises the temperature and passes the seed."""

    name = BrainName.LLM.value

    def __init__(
        self,
        client: LLMClient,
        default_model: str | None,
        *,
        candidate_token_budget: int = DEFAULT_CANDIDATE_TOKEN_BUDGET,
        sample_temperature: float = 1.0,
        prompt_style: PromptStyle = "twinsim",
        grounding: GroundingStrategy = "names",
        vision: VisionPolicy = "auto",
    ) -> None:
        self.client = client
        self.default_model = default_model
        self.candidate_token_budget = candidate_token_budget
        self.sample_temperature = sample_temperature
        self.prompt_style = prompt_style
        self.grounding = grounding
        self.vision = vision

    # ---- what the graph and a live session ask before a prediction ------------------------------------

    def reads_memories(self, options: PredictOptions) -> bool:
        """The OPeRA protocol gives the model no memories: the graph need not recall any."""
        return (options.prompt_style or self.prompt_style) not in PROTOCOL_STYLES

    def wants_screenshot(self, model: str | None, options: PredictOptions) -> bool:
        """Whether a screenshot of the page would reach the model (a live session takes one only then)."""
        model = model or self.default_model
        if not model or (options.prompt_style or self.prompt_style) in PROTOCOL_STYLES:
            return False
        return shows_screenshot(model, options.vision or self.vision)[0]

    # ---- one decision --------------------------------------------------------------------------------

    async def decide(self, ctx: TwinContext) -> Decision:
        model = ctx.model or self.default_model
        if not model:
            raise BrainError("no model configured for the llm brain (set a default model or pass one per request)")
        messages, choices, details = await self.prompt(ctx, model)
        temperature = self.sample_temperature if ctx.mode == "sample" else 0.0
        seed = ctx.seed if ctx.mode == "sample" else None
        try:
            completion = await self.client.complete(model, messages, temperature=temperature, seed=seed, cacheable=_parses)
        except LLMCallError as exc:
            raise BrainError(f"{model}: {exc.reason}") from exc
        try:
            rationale, action = parse_decision_text(completion.text)
        except ValueError as exc:
            raise BrainError(f"unparseable output from {model}: {exc}", usage=completion.usage) from exc
        details = {"raw": completion.text, "cached": completion.cached, "attempts": completion.attempts, **details}
        if choices is not None:
            action, error, number = choices.ground(action, ctx.observation)
            if number is not None:
                details.update(choice=number, grounded_to=action.name)
            if error is not None:
                details["grounding_error"] = error  # the graph sends it back once, then falls back
        return Decision(action=action, rationale=rationale, usage=completion.usage, model=model, details=details)

    async def prompt(self, ctx: TwinContext, model: str) -> tuple[list[dict], ChoiceSet | None, dict]:
        """The messages for this context, the numbered choices when the model answers by number, and what the
        decision's details should say about the prompt (style, grounding, screenshot)."""
        style = ctx.prompt_style or self.prompt_style
        details: dict = {"prompt_style": style}
        if style in PROTOCOL_STYLES:
            details["grounding"] = "names"
            if ctx.screenshot is not None:
                details["screenshot"] = PROTOCOL_NO_IMAGE
            return protocol_messages(ctx, style), None, details
        strategy = ctx.grounding or self.grounding
        screenshot = ctx.screenshot
        if screenshot is not None:
            send, why_not = shows_screenshot(model, ctx.vision or self.vision)
            if not send:
                details["screenshot"] = f"not sent: {why_not}"
                screenshot = None
        observation = ctx.observation
        shown = ([], False) if observation.empty else choose_candidates(observation, self.candidate_token_budget,
                                                                       ranking_query(ctx))
        choices, note = (None, "no page: the model names elements by the site's names") if observation.empty \
            else number_choices(shown[0], strategy, (screenshot.width, screenshot.height) if screenshot else None)
        details["grounding"] = choices.strategy if choices is not None else "names"
        if note is not None and strategy != "names":
            details["grounding_note"] = note
        messages = build_messages(ctx, candidate_token_budget=self.candidate_token_budget, choices=choices,
                                  shown=shown, screenshot=screenshot is not None)
        if screenshot is None:
            return messages, choices, details
        if choices is not None and choices.marked:
            marks = [(number, c.bbox) for number, c in choices.numbers.items() if c.bbox is not None]
            screenshot, drawn = await asyncio.to_thread(draw_marks, screenshot, marks)
            details["screenshot"] = f"sent, {len(drawn)} elements marked with numbered boxes"
            return with_image(messages, screenshot, MARKED_CAPTION), choices, details
        details["screenshot"] = "sent"
        return with_image(messages, screenshot, SCREENSHOT_CAPTION), choices, details
