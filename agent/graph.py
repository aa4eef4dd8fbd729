"""The twin's decision graph, the way a single prediction runs: recall -> decide.

    recall   the persona's memories most relevant to this page and history (agent.memory_recall)
    decide   reason -> act -> ground, with one retry and the embedded fallback (agent.decide_step); the
             result says why when the fallback answered (`fallback_used`, `fallback_reason`)

Experiments' bulk units run the same recall and decide step without LangGraph (agent/experiments/unit_loop.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import cast

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agent.brain_answer import Decision
from agent.brains.base import Brain
from agent.decide_step import FALLBACK_BRAIN, Ask, decide_and_ground
from agent.memory_recall import MemorySource, Recall
from agent.prediction import Prediction, prediction_of
from agent.prediction_input import NOTHING_RESOLVED, PredictionInput, ResolvedInput
from agent.step_driving import run_async
from agent.twin_context import TwinContext
from agent.twin_state import TwinState


class TwinGraph:
    """One compiled graph shared by every request; brains and memory are injected, never global."""

    def __init__(self, brains: Mapping[str, Brain], memory: MemorySource | None) -> None:
        if FALLBACK_BRAIN not in brains:
            raise ValueError("the embedded brain is required: it is the fallback")
        self._brains = dict(brains)
        self.recall = Recall(memory, self._brains)
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

    def _build(self) -> CompiledStateGraph:
        graph = StateGraph(TwinState)
        graph.add_node("recall", self._recall)
        graph.add_node("decide", self._decide)
        graph.add_edge(START, "recall")
        graph.add_edge("recall", "decide")
        graph.add_edge("decide", END)
        return graph.compile()

    # ---- nodes ----------------------------------------------------------------------------------

    async def _recall(self, state: TwinState) -> dict:
        given, resolved = state["input"], state["resolved"]
        request = self.recall.request(
            resolved.persona, resolved.observation, given.history, given.options, given.task, given.brain_name
        )
        if request is None:
            return {"memories": []}
        memories = await asyncio.to_thread(self.recall, request)
        return {"memories": memories, "no_memories": not memories}

    async def _decide(self, state: TwinState) -> dict:
        given = state["input"]
        ctx = TwinContext.of(given, state["resolved"], state["memories"])
        step = decide_and_ground(self._brains[given.brain_name], ctx, given.options.max_retries)
        return {"grounded": await run_async(step, self._answer)}

    async def _answer(self, ask: Ask) -> Decision:
        return await self._brains[ask.brain].decide(ask.ctx)

    # ---- entry point ----------------------------------------------------------------------------

    async def predict(self, given: PredictionInput, resolved: ResolvedInput = NOTHING_RESOLVED) -> Prediction:
        """`resolved`: the persona and page `given` names, looked up and read (agent/predict_use_case.py does
        it for the API, the CLI and evaluation; experiments and live runs read their pages themselves)."""
        self.brain(given.brain_name)  # an unknown name is refused before the graph runs
        started = time.perf_counter()
        state = cast(TwinState, await self._graph.ainvoke({"input": given, "resolved": resolved}))
        return prediction_of(
            given,
            resolved,
            state["grounded"],
            state["memories"],
            state.get("no_memories", False),
            round((time.perf_counter() - started) * 1000, 2),
        )
