"""The twin's decision graph: recall -> reason -> act -> ground, with one retry and an embedded fallback.

recall   the persona's memories most relevant to this page and history
reason   the brain writes a first-person rationale and proposes an action (one brain call)
act      the proposal is made concrete for this page (a near-miss name resolved to the candidate's)
ground   the action must be doable here; if not, the reason goes back to the brain once, then the
         embedded brain answers instead and the result says why (`fallback_used`, `fallback_reason`)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import NamedTuple

from langgraph.graph import END, START, StateGraph

from agent.brains.base import Brain
from agent.brains.names import BrainName
from agent.decision import BrainError, MemorySource, TwinContext, Usage
from agent.grounding import click_type_of, grounding_error, normalise, rejection
from agent.history import Step
from agent.options import PredictOptions
from agent.page.observation import EMPTY_OBSERVATION, Observation
from agent.prediction import Prediction
from agent.recall_query import recall_query
from agent.screenshots import Screenshot
from agent.state import TwinState
from agent.tasks import Task
from personas.memory_types import Memory
from personas.persona import Persona

FALLBACK_BRAIN = BrainName.EMBEDDED.value
NO_MEMORIES = "none stored for this person: the twin decided from its profile alone"


class RecallRequest(NamedTuple):
    """What the recall node asks memory for one prediction; hashable, so recalls can be made ahead and shared."""

    persona_id: str
    query: str
    k: int


def _without_rationales(history: list[Step]) -> list[Step]:
    return [step.model_copy(update={"rationale": None}) for step in history]


class TwinGraph:
    """One compiled graph shared by every request; brains and memory are injected, never global."""

    def __init__(self, brains: Mapping[str, Brain], memory: MemorySource | None) -> None:
        if FALLBACK_BRAIN not in brains:
            raise ValueError("the embedded brain is required: it is the fallback")
        self._brains = dict(brains)
        self._memory = memory
        self._graph = self._build()

    @property
    def brains(self) -> list[str]:
        return sorted(self._brains)

    def brain(self, name: str) -> Brain:
        """One of the graph's brains by name (experiments run the embedded one in bulk, without the graph)."""
        if name not in self._brains:
            raise ValueError(f"unknown brain '{name}'; available: {', '.join(self.brains)}")
        return self._brains[name]

    def brains_for(self, brain: str) -> dict[str, Brain]:
        """The brains a prediction with `brain` can use: that one and the embedded fallback."""
        return {name: self.brain(name) for name in sorted({brain, FALLBACK_BRAIN})}

    def _build(self):
        graph = StateGraph(TwinState)
        graph.add_node("recall", self._recall)
        graph.add_node("reason", self._reason)
        graph.add_node("act", self._act)
        graph.add_node("ground", self._ground)
        graph.add_node("fallback", self._fallback)
        graph.add_edge(START, "recall")
        graph.add_edge("recall", "reason")
        graph.add_conditional_edges("reason", self._after_reason, {"act": "act", "fallback": "fallback"})
        graph.add_edge("act", "ground")
        graph.add_conditional_edges(
            "ground", self._after_ground, {"done": END, "retry": "reason", "fallback": "fallback"}
        )
        graph.add_edge("fallback", END)
        return graph.compile()

    # ---- recall, also for callers that recall ahead (an evaluation on Ray) ------------------------

    def wants_memories(self, persona: Persona | None, options: PredictOptions, brain: str | None = None) -> bool:
        """Whether a prediction recalls: not without a persona or a store, not when ablated, and not for a brain
        whose prompt shows no memories (the LLM brain under the OPeRA protocol)."""
        if (
            persona is None
            or options.ablate_persona
            or options.ablate_memory
            or self._memory is None
            or options.memories_k == 0
        ):
            return False
        reads = getattr(self._brains.get(brain), "reads_memories", None) if brain is not None else None
        return reads is None or reads(options)

    def recall_request(
        self,
        persona: Persona | None,
        observation: Observation,
        history: list[Step],
        options: PredictOptions,
        task: Task | None = None,
        brain: str | None = None,
    ) -> RecallRequest | None:
        """The recall this prediction makes, or None when it recalls nothing."""
        if not self.wants_memories(persona, options, brain):
            return None
        return RecallRequest(persona.id, recall_query(observation, history, task), options.memories_k)

    def recall(self, request: RecallRequest) -> list[Memory]:
        return self._memory.recall(request.persona_id, request.query, request.k)

    # ---- nodes ----------------------------------------------------------------------------------

    async def _recall(self, state: TwinState) -> dict:
        request = self.recall_request(
            state.get("persona"),
            state["observation"],
            state["history"],
            state["options"],
            state.get("task"),
            state["brain"],
        )
        if request is None:
            return {"memories": []}
        memories = await asyncio.to_thread(self.recall, request)
        return {"memories": memories, "no_memories": not memories}

    def _context(self, state: TwinState, feedback: str | None) -> TwinContext:
        options = state["options"]
        history = _without_rationales(state["history"]) if options.ablate_rationale else state["history"]
        return TwinContext(
            persona=None if options.ablate_persona else state.get("persona"),
            memories=state.get("memories", []),
            observation=state["observation"],
            history=history,
            mode=options.mode,
            seed=options.seed,
            feedback=feedback,
            model=state.get("model"),
            task=state.get("task"),
            screenshot=state.get("screenshot"),
            page_html=state.get("page_html"),
            prompt_style=options.prompt_style,
            grounding=options.grounding,
            vision=options.vision,
        )

    async def _reason(self, state: TwinState) -> dict:
        brain = self._brains[state["brain"]]
        attempts = state.get("attempts", 0) + 1
        try:
            decision = await brain.decide(self._context(state, state.get("feedback")))
        except BrainError as error:
            return {
                "decision": None,
                "attempts": attempts,
                "fallback_reason": f"{brain.name} brain failed: {error}",
                "usage": state.get("usage", Usage()).add(error.usage),
            }
        return {"decision": decision, "attempts": attempts, "usage": state.get("usage", Usage()).add(decision.usage)}

    def _after_reason(self, state: TwinState) -> str:
        return "act" if state.get("decision") is not None else "fallback"

    async def _act(self, state: TwinState) -> dict:
        return {"action": normalise(state["decision"].action, state["observation"])}

    async def _ground(self, state: TwinState) -> dict:
        action = state["action"]
        if not getattr(self._brains[state["brain"]], "needs_grounding", True):  # baselines are scored as they are
            return {"feedback": None, "answered_by": state["brain"]}
        # A brain that grounded its own answer (a choice's number, agent/llm/choices.py) says why it could not.
        error = state["decision"].details.get("grounding_error") or grounding_error(action, state["observation"])
        if error is None:
            return {"feedback": None, "answered_by": state["brain"]}
        return {"feedback": rejection(action, error)}

    def _after_ground(self, state: TwinState) -> str:
        if state.get("feedback") is None:
            return "done"
        if state["attempts"] <= state["options"].max_retries:
            return "retry"
        return "fallback"

    async def _fallback(self, state: TwinState) -> dict:
        reason = state.get("fallback_reason")
        if reason is None:
            reason = f"invalid action after {state['attempts']} attempt(s): {state['feedback']}"
        decision = await self._brains[FALLBACK_BRAIN].decide(self._context(state, None))
        return {
            "decision": decision,
            "action": decision.action,
            "fallback_reason": reason,
            "answered_by": FALLBACK_BRAIN,
            "fell_back": True,
            "usage": state.get("usage", Usage()).add(decision.usage),
        }

    # ---- entry point ----------------------------------------------------------------------------

    async def predict(
        self,
        *,
        persona: Persona | None,
        observation: Observation = EMPTY_OBSERVATION,
        history: list[Step] | None = None,
        brain: str = FALLBACK_BRAIN,
        model: str | None = None,
        options: PredictOptions | None = None,
        task: Task | None = None,
        screenshot: Screenshot | None = None,
        page_html: str | None = None,
    ) -> Prediction:
        """`screenshot` (verified: agent/screenshots.py) is for brains that look at the page; `page_html`, the page's
        simplified HTML in full, for the LLM brain's OPeRA-protocol prompt."""
        self.brain(brain)  # an unknown name is refused before the graph runs
        started = time.perf_counter()
        state: TwinState = await self._graph.ainvoke(
            {
                "persona": persona,
                "observation": observation,
                "history": list(history or []),
                "options": options or PredictOptions(),
                "brain": brain,
                "model": model,
                "task": task,
                "screenshot": screenshot,
                "page_html": page_html,
                "attempts": 0,
                "usage": Usage(),
            }
        )
        decision, action = state["decision"], state["action"]
        click_type = click_type_of(action, observation, decision.details)
        fallback_used = state.get("fell_back", False)
        details = decision.details
        if screenshot is not None and "screenshot" not in details:
            details = {
                **details,
                "screenshot": f"not used: the {state['answered_by']} brain reads the page's elements, not images",
            }
        if state.get("no_memories"):  # a persona stored with no memories decides from its profile alone
            details = {**details, "memories": NO_MEMORIES}
        return Prediction(
            action=action,
            rationale=decision.rationale,
            click_type=click_type,
            brain=state["answered_by"],
            requested_brain=brain,
            model=decision.model,
            fallback_used=fallback_used,
            fallback_reason=state.get("fallback_reason") if fallback_used else None,
            attempts=state["attempts"],
            memories=state.get("memories", []),
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
            usage=state["usage"],
            details=details,
        )
