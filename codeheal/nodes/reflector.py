"""The reflector: turns the latest failure into a short written lesson."""

from __future__ import annotations

import time

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda

from codeheal.context import current_context
from codeheal.llm import chat_model
from codeheal.nodes.prompts import reflector_messages
from codeheal.nodes.usage import reply_text, usage_of
from codeheal.state import State

EMPTY_REFLECTION = "(the reflector gave no lesson)"


def make_reflector(llm: BaseChatModel | None = None) -> Runnable:
    """The reflector node; `llm` overrides the model named in the run's Context."""

    def request(state: State) -> tuple[BaseChatModel, list[BaseMessage]]:
        context = current_context()
        model = llm or chat_model(context, context.temperature)
        history = state["history"]
        return model, reflector_messages(
            task=state["task"], code=history[-1]["code"], feedback=state["feedback"]
        )

    def reflector(state: State) -> dict:
        model, messages = request(state)
        started = time.perf_counter()
        return _update(state, model.invoke(messages), started)

    async def areflector(state: State) -> dict:
        model, messages = request(state)
        started = time.perf_counter()
        return _update(state, await model.ainvoke(messages), started)

    return RunnableLambda(reflector, afunc=areflector, name="reflector")


def _update(state: State, reply: BaseMessage, started: float) -> dict:
    lesson = reply_text(reply).strip() or EMPTY_REFLECTION
    usage = usage_of(reply, started)
    *earlier, last = state["history"]
    last = {
        **last,
        "reflection": lesson,
        "tokens": last["tokens"] + usage["tokens"],
        "seconds": round(last["seconds"] + usage["seconds"], 3),
    }
    return {"reflections": [lesson], "history": [*earlier, last]}
