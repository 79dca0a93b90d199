"""The actor: writes the next candidate from the task, the lessons and the last failure."""

from __future__ import annotations

import asyncio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda

from codeheal.context import Context, current_context
from codeheal.llm import chat_model
from codeheal.nodes.evaluator import attempt_limit
from codeheal.nodes.extraction import extract_code
from codeheal.nodes.prompts import actor_messages
from codeheal.nodes.model_call import ainvoke_model, invoke_model
from codeheal.progress import AttemptStarted, emit
from codeheal.state import State, Usage


def make_actor(llm: BaseChatModel | None = None) -> Runnable:
    """The actor node; `llm` overrides the model named in the run's Context."""

    def request(state: State) -> tuple[BaseChatModel, list[BaseMessage]]:
        context = current_context()
        emit(AttemptStarted(
            kind="attempt_started", attempt=(state.get("attempts") or 0) + 1,
            max_attempts=attempt_limit(state, context),
        ))
        model = llm or chat_model(context, _temperature(context, state))
        history = state.get("history") or []
        return model, actor_messages(
            task=state["task"],
            tests=state["tests"],
            entry_point=state.get("entry_point"),
            reflections=state.get("reflections") or [],
            last_code=history[-1]["code"] if history else None,
            last_feedback=state.get("feedback"),
        )

    def actor(state: State) -> dict:
        model, messages = request(state)
        return _update(*invoke_model(model, messages))

    async def aactor(state: State) -> dict:
        # building the model may start the embedded model server: blocking work that must
        # stay off the event loop (the LangGraph server rejects blocking calls in it)
        model, messages = await asyncio.to_thread(request, state)
        return _update(*await ainvoke_model(model, messages))

    return RunnableLambda(actor, afunc=aactor, name="actor")


def _temperature(context: Context, state: State) -> float:
    return context.temperature if not state.get("attempts") else context.retry_temperature


def _update(reply: str, usage: Usage) -> dict:
    """A reply without code becomes an empty candidate: the evaluator reports it as a
    failed attempt ("no code in reply") instead of the run crashing."""
    return {"candidate": extract_code(reply) or "", "generation": usage}
