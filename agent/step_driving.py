"""Running a step written once for both ways a prediction runs: awaited in the graph, called in bulk.

Why: the decide-and-ground step and an experiment's unit loop are generators that yield what they need answered
(a brain's decision, a page's prediction) and receive the answer; they hold the logic, and these two drivers only
answer, one with a coroutine (the graph, LLM brains), one with a plain call (the embedded brain in bulk, where an
event loop per unit would cost more than the decision). A failure answering is thrown into the step, which
decides what it means (a failing brain falls back)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import TypeVar

Ask = TypeVar("Ask")
Answer = TypeVar("Answer")
Result = TypeVar("Result")

Step = Generator[Ask, Answer, Result]


def run_sync(step: Generator[Ask, Answer, Result], answer: Callable[[Ask], Answer]) -> Result:
    try:
        ask = next(step)
        while True:
            try:
                reply = answer(ask)
            except Exception as error:  # noqa: BLE001 (handed to the step, which re-raises what it does not handle)
                ask = step.throw(error)
            else:
                ask = step.send(reply)
    except StopIteration as done:
        return done.value


async def run_async(step: Generator[Ask, Answer, Result], answer: Callable[[Ask], Awaitable[Answer]]) -> Result:
    try:
        ask = next(step)
        while True:
            try:
                reply = await answer(ask)
            except Exception as error:  # noqa: BLE001 (handed to the step, which re-raises what it does not handle)
                ask = step.throw(error)
            else:
                ask = step.send(reply)
    except StopIteration as done:
        return done.value
