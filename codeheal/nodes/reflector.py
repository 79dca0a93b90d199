"""The reflector: turns the latest failure into a short written lesson."""

from __future__ import annotations

import re

import asyncio
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda

from codeheal.context import current_context
from codeheal.llm import chat_model
from codeheal.nodes.prompts import reflector_messages
from codeheal.nodes.model_call import ainvoke_model, invoke_model
from codeheal.progress import ReflectionWritten, emit
from codeheal.state import State, Usage

EMPTY_REFLECTION = "(the reflector gave no lesson)"
LESSON_MAX_TOKENS = 200
LESSON_MAX_SENTENCES = 4
LESSON_MAX_CHARS = 600
CODE_BLOCK = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def make_reflector(llm: BaseChatModel | None = None) -> Runnable:
    """The reflector node; `llm` overrides the model named in the run's Context."""

    def request(state: State) -> tuple[BaseChatModel, list[BaseMessage]]:
        context = current_context()
        model = llm or chat_model(context, context.temperature, LESSON_MAX_TOKENS)
        history = state["history"]
        return model, reflector_messages(
            task=state["task"], code=history[-1]["code"], feedback=state["feedback"]
        )

    def reflector(state: State) -> dict:
        if not current_context().reflect:
            return {}
        model, messages = request(state)
        return _update(state, *invoke_model(model, messages))

    async def areflector(state: State) -> dict:
        if not current_context().reflect:
            return {}
        # building the model may start the embedded model server: blocking work that must
        # stay off the event loop (the LangGraph server rejects blocking calls in it)
        model, messages = await asyncio.to_thread(request, state)
        return _update(state, *await ainvoke_model(model, messages))

    return RunnableLambda(reflector, afunc=areflector, name="reflector")


def condense_lesson(reply: str) -> str:
    """The lesson as the memory keeps it: prose only, a few sentences. Small models often
    ignore "no code" and ramble, and every lesson is repeated in later actor prompts."""
    prose = " ".join(CODE_BLOCK.sub(" ", reply).split())
    sentences = SENTENCE_END.split(prose)[:LESSON_MAX_SENTENCES]
    lesson = " ".join(sentences)
    if len(lesson) > LESSON_MAX_CHARS:
        lesson = lesson[:LESSON_MAX_CHARS].rsplit(" ", 1)[0] + " ..."
    return lesson or EMPTY_REFLECTION


def _update(state: State, reply: str, usage: Usage) -> dict:
    lesson = condense_lesson(reply)
    *earlier, last = state["history"]
    last = {
        **last,
        "reflection": lesson,
        "tokens": last["tokens"] + usage["tokens"],
        "seconds": round(last["seconds"] + usage["seconds"], 3),
    }
    emit(ReflectionWritten(kind="reflection_written", attempt=last["attempt"], reflection=lesson))
    return {"reflections": [lesson], "history": [*earlier, last]}
