"""The actor: writes the next candidate from the task, the lessons and the last failure."""

from __future__ import annotations

import asyncio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda

from codeheal.context import current_context
from codeheal.llm import chat_model
from codeheal.nodes.evaluator import attempt_limit
from codeheal.nodes.extraction import extract_code
from codeheal.nodes.prompts import actor_messages
from codeheal.nodes.model_call import ainvoke_model, invoke_model
from codeheal.progress import AttemptStarted, emit
from codeheal.state import State, Usage


def make_actor(llm: BaseChatModel | None = None) -> Runnable:
    """The actor node; `llm` overrides the model named in the run's Context."""

    def request(state: State) -> tuple[BaseChatModel, list[BaseMessage], int]:
        context = current_context()
        emit(AttemptStarted(
            kind="attempt_started", attempt=(state.get("attempts") or 0) + 1,
            max_attempts=attempt_limit(state, context),
        ))
        retry = bool(state.get("attempts"))
        model = llm or chat_model(context, context.retry_temperature if retry else context.temperature)
        history = state.get("history") or []
        last_code = None  # None: no attempt yet; "": one failed, its code is not shown
        if history:
            last_code = history[-1]["code"] if context.show_failed_code else ""
        messages = actor_messages(
            task=state["task"],
            tests=state["tests"],
            entry_point=state.get("entry_point"),
            reflections=state.get("reflections") or [],
            last_code=last_code,
            last_feedback=state.get("feedback"),
        )
        return model, messages, context.retry_samples if retry else 1

    def actor(state: State) -> dict:
        model, messages, samples = request(state)
        return _update([invoke_model(model, messages) for _ in range(samples)])

    async def aactor(state: State) -> dict:
        # building the model may start the embedded model server: blocking work that must
        # stay off the event loop (the LangGraph server rejects blocking calls in it)
        model, messages, samples = await asyncio.to_thread(request, state)
        # One after another, not gathered: a local server then reuses the cached prompt.
        return _update([await ainvoke_model(model, messages) for _ in range(samples)])

    return RunnableLambda(actor, afunc=aactor, name="actor")


def _update(replies: list[tuple[str, Usage]]) -> dict:
    """A reply without code becomes an empty candidate: the evaluator reports it as a
    failed attempt ("no code in reply") instead of the run crashing."""
    return {
        "candidates": [extract_code(reply) or "" for reply, _ in replies],
        "generation": Usage(
            tokens=sum(usage["tokens"] for _, usage in replies),
            seconds=sum(usage["seconds"] for _, usage in replies),
        ),
    }
