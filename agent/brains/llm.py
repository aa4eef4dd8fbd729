"""The `llm` brain: any chat model through litellm decides the twin's next action and says why.

Grounding (is the chosen name on this page?) is the graph's job, not this brain's: this brain only turns the
context into a prompt, the answer into a Decision, and every failure into BrainError so the graph can fall back
to the embedded brain. When the model answers with a choice's number (a grounding strategy other than names,
agent/llm/choices.py), the number is turned back into its element (or into leaving, the last option) here, and a
number that is not a choice is passed on as a grounding error naming the valid ones.

What it is configured with (prompt style, grounding strategy, when to show the screenshot) can be overridden per
prediction (PredictOptions); the decision's details say what was used, and why a screenshot was not sent.
"""

from __future__ import annotations

import asyncio

from agent.actions import TerminateAction
from agent.brain_answer import BrainError, Decision
from agent.brains.names import BrainName
from agent.llm.answer_schema import StructuredOutput, answer_schema, resolve_structured_output, response_format
from agent.llm.choices import ChoiceSet, number_choices
from agent.llm.client import LLMCallError, LLMClient
from agent.llm.context_fit import BuiltPrompt, PromptTooLong, fit_prompt
from agent.llm.opera_protocol import PROTOCOL_STYLES, protocol_messages
from agent.llm.page_block import DEFAULT_CANDIDATE_TOKEN_BUDGET, choose_candidates
from agent.llm.parsing import parse_decision_text
from agent.llm.prompts import build_messages, ranking_query
from agent.llm.set_of_marks import draw_marks
from agent.llm.token_count import TokenCounter
from agent.llm.vision import shows_screenshot, with_image
from agent.predict_options import GroundingStrategy, PredictOptions, PromptStyle, VisionPolicy
from agent.twin_context import TwinContext

SCREENSHOT_CAPTION = "The screenshot of the page in front of you:"
MARKED_CAPTION = "The screenshot of the page in front of you, with numbered boxes around the elements you can choose:"
PROTOCOL_NO_IMAGE = "not sent: the OPeRA protocol gives the model no image"
# Room kept in the context for the answer when the context size is known; also the answer's token cap then.
ANSWER_TOKENS = 384
# Room the page leaves in the context for one twin's own part (profile, memories, task, history). The page is sized
# against this allowance, not against the twin at hand, so that every twin whose part fits it sees the same page
# block, and a server that keeps the last prompt's KV cache reads that page once for them all.
PERSON_ALLOWANCE_TOKENS = 768


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
        structured_output: StructuredOutput = "auto",
        context_tokens: int | None = None,
    ) -> None:
        self.client = client
        self.default_model = default_model
        self.candidate_token_budget = candidate_token_budget
        self.sample_temperature = sample_temperature
        self.prompt_style = prompt_style
        self.grounding = grounding
        self.vision = vision
        self.structured_output = structured_output
        self.context_tokens = context_tokens  # the model server's context size, when known (a setting)
        self._counter = TokenCounter(client.api_base) if client.api_base and context_tokens else None

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
        try:  # before the prompt: building it asks litellm about the model, which must not wait for its import
            await self.client.prepare(model)
        except LLMCallError as exc:
            raise BrainError(f"{model}: {exc.reason}") from exc
        try:
            built = await self.fitted_prompt(ctx, model)
        except PromptTooLong as exc:
            raise BrainError(f"{model}: not sent: {exc}") from exc
        messages, choices, details = built.messages, built.choices, built.details
        temperature = self.sample_temperature if ctx.mode == "sample" else 0.0
        seed = ctx.seed if ctx.mode == "sample" else None
        schema_format = self._response_format(ctx, model, built, details)
        try:
            completion = await self.client.complete(
                model,
                messages,
                temperature=temperature,
                seed=seed,
                cacheable=_parses,
                response_format=schema_format,
                max_tokens=ANSWER_TOKENS if self.context_tokens else None,
            )
        except LLMCallError as exc:
            raise BrainError(f"{model}: {exc.reason}") from exc
        try:
            rationale, action = parse_decision_text(completion.text)
        except ValueError as exc:
            raise BrainError(f"unparseable output from {model}: {exc}", usage=completion.usage) from exc
        details = {
            "raw": completion.text,
            "cached": completion.cached,
            "attempts": completion.attempts,
            "latency_s": round(completion.latency_s, 3),
            **details,
        }
        if choices is not None:
            action, error, number = choices.ground(action, ctx.observation)
            if number is not None:
                grounded_to = "leave the site" if isinstance(action, TerminateAction) else action.name
                details.update(choice=number, grounded_to=grounded_to)
            if error is not None:
                details["grounding_error"] = error  # the graph sends it back once, then falls back
        return Decision(action=action, rationale=rationale, usage=completion.usage, model=model, details=details)

    def _response_format(self, ctx: TwinContext, model: str, built: BuiltPrompt, details: dict) -> dict | None:
        """The schema-constrained answer format for this prompt, or None; details["answer_format"] says which."""
        form = resolve_structured_output(self.structured_output, model, self.client.api_base)
        style = ctx.prompt_style or self.prompt_style
        if form == "off":
            details["answer_format"] = (
                "free text, parsed (no schema: TWINSIM_LLM_STRUCTURED_OUTPUT=off or unknown server)"
            )
            return None
        if style in PROTOCOL_STYLES or ctx.observation.empty:
            why = "the OPeRA protocol's own answer format" if style in PROTOCOL_STYLES else "no page to limit it to"
            details["answer_format"] = f"free text, parsed ({why})"
            return None
        details["answer_format"] = (
            f"schema ({form}): the element limited to the {len(built.shown)} listed"
            if built.choices is None
            else f"schema ({form}): a choice among the {len(built.choices.numbers)} numbered elements and leaving"
        )
        return response_format(form, answer_schema(built.shown, built.choices))

    async def fitted_prompt(self, ctx: TwinContext, model: str) -> BuiltPrompt:
        """The prompt, cut to the model's context when its size is known (agent/llm/context_fit.py)."""
        if not self.context_tokens:
            return await self._compose(ctx, model, self.candidate_token_budget)
        budget = await self._page_budget(ctx, model)
        return await fit_prompt(
            lambda budget: self._compose(ctx, model, budget),
            self._counter,
            context_tokens=self.context_tokens,
            answer_tokens=ANSWER_TOKENS,
            budget=budget,
            elements_on_page=len(ctx.observation.candidates),
        )

    async def _page_budget(self, ctx: TwinContext, model: str) -> int:
        """The element budget that fits the page with PERSON_ALLOWANCE_TOKENS left for the twin: the same for every
        twin on this page (then cut further only for a twin whose own part is longer)."""
        assert self.context_tokens is not None
        if ctx.observation.empty or self.context_tokens <= PERSON_ALLOWANCE_TOKENS + ANSWER_TOKENS:
            return self.candidate_token_budget
        try:
            page_only = await fit_prompt(
                lambda budget: self._compose(ctx, model, budget, person=False),
                self._counter,
                context_tokens=self.context_tokens - PERSON_ALLOWANCE_TOKENS,
                answer_tokens=ANSWER_TOKENS,
                budget=self.candidate_token_budget,
                elements_on_page=len(ctx.observation.candidates),
            )
        except PromptTooLong:  # the fit with the twin's own part says by how much, with the real numbers
            return self.candidate_token_budget
        return page_only.details["context"]["element_budget"]

    async def prompt(self, ctx: TwinContext, model: str) -> tuple[list[dict], ChoiceSet | None, dict]:
        """The messages for this context, the numbered choices when the model answers by number, and what the
        decision's details should say about the prompt (style, grounding, screenshot)."""
        built = await self._compose(ctx, model, self.candidate_token_budget)
        return built.messages, built.choices, built.details

    async def _compose(self, ctx: TwinContext, model: str, budget: int, *, person: bool = True) -> BuiltPrompt:
        style = ctx.prompt_style or self.prompt_style
        details: dict = {"prompt_style": style}
        if style in PROTOCOL_STYLES:
            details["grounding"] = "names"
            if ctx.screenshot is not None:
                details["screenshot"] = PROTOCOL_NO_IMAGE
            return BuiltPrompt(protocol_messages(ctx, style), None, details, [])
        strategy = ctx.grounding or self.grounding
        screenshot = ctx.screenshot
        if screenshot is not None:
            send, why_not = shows_screenshot(model, ctx.vision or self.vision)
            if not send:
                details["screenshot"] = f"not sent: {why_not}"
                screenshot = None
        observation = ctx.observation
        shown = ([], False) if observation.empty else choose_candidates(observation, budget, ranking_query(ctx))
        choices, note = (
            (None, "no page: the model names elements by the site's names")
            if observation.empty
            else number_choices(shown[0], strategy, (screenshot.width, screenshot.height) if screenshot else None)
        )
        details["grounding"] = choices.strategy if choices is not None else "names"
        if note is not None and strategy != "names":
            details["grounding_note"] = note
        messages = build_messages(
            ctx,
            candidate_token_budget=budget,
            choices=choices,
            shown=shown,
            screenshot=screenshot is not None,
            person=person,
        )
        if screenshot is None:
            return BuiltPrompt(messages, choices, details, shown[0])
        if choices is not None and choices.marked:
            marks = [(number, c.bbox) for number, c in choices.numbers.items() if c.bbox is not None]
            marked, drawn = await asyncio.to_thread(draw_marks, screenshot, marks)
            details["screenshot"] = f"sent, {len(drawn)} elements marked with numbered boxes"
            return BuiltPrompt(with_image(messages, marked, MARKED_CAPTION), choices, details, shown[0])
        details["screenshot"] = "sent"
        return BuiltPrompt(with_image(messages, screenshot, SCREENSHOT_CAPTION), choices, details, shown[0])
