"""The reflector: turns the latest failure into a short written reflection."""

from __future__ import annotations

import re
from collections.abc import Callable

from langchain_core.language_models import BaseChatModel

from codeheal.context import current_context
from codeheal.errors import DeadlineReached, PromptTooLargeError
from codeheal.fences import FENCE
from codeheal.forms.choice import form_of
from codeheal.llm import chat_model
from codeheal.llm.factory import token_counter
from codeheal.rules import call_timeout, completion_allowance, model_context, out_of_time, turn
from codeheal.progress import ReflectionWritten, emit
from codeheal.prompting.model_call import charged, sample_seed
from codeheal.prompting.parts import unfounded
from codeheal.state import State
from codeheal.steps import ModelCall, Steps

REFLECTION_MAX_TOKENS = 200
REFLECTION_MAX_SENTENCES = 4
REFLECTION_MAX_CHARS = 600
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def make_reflector(llm: BaseChatModel | None = None) -> Callable[[State], Steps[dict]]:
    """The reflector node's body; `llm` overrides the model named in the run's Context."""

    def reflector(state: State) -> Steps[dict]:
        if out_of_time(state):
            return {"stop_reason": "deadline"}
        context = current_context()
        form = form_of(state.form)
        # The reflection is the next attempt's model's: on a handover, the model taking over writes it.
        writer = model_context(context, turn(state, context, form.policy_for(context.policy)).model)
        model = llm or chat_model(writer, context.policy.temperature, REFLECTION_MAX_TOKENS)
        *earlier, last = state.history
        counter = token_counter(model)
        messages = form.reflector_prompt(state, writer, REFLECTION_MAX_TOKENS, counter)
        allowance = completion_allowance(
            state, context, prompt_tokens=counter.prompt_tokens(messages), requests=1, samples=1,
            wanted=REFLECTION_MAX_TOKENS,
        )
        if not allowance:
            return {"stop_reason": "budget"}
        # In a seeded run the reflection is seeded as the attempt it is written for (one reply, its own prompt).
        seed = sample_seed(context.policy.seed, last["attempt"] + 1, 0)
        try:
            ((reply, usage),) = yield ModelCall(model, messages, max_tokens=allowance, seed=seed,
                                                timeout_s=call_timeout(state))
        except DeadlineReached:
            return {"stop_reason": "deadline"}
        except PromptTooLargeError:  # the prompt was over the model's context: no reflection, the run goes on
            return {"history": [*earlier, last]}
        reflection = condensed_reflection(reply)
        if unfounded(reflection, messages):  # it names an exception the failure does not show: dropped
            reflection = ""
        last = charged(last, usage)
        if not reflection:  # an empty reflection is none: nothing goes into the memory or the next prompt
            return {"history": [*earlier, last]}
        emit(ReflectionWritten(kind="reflection_written", attempt=last["attempt"], reflection=reflection))
        return {"reflections": [reflection], "history": [*earlier, {**last, "reflection": reflection}]}

    return reflector


def condensed_reflection(reply: str) -> str:
    """The reflection as the memory keeps it: prose only, a few sentences ("" when the reply has no
    prose). Small models often ignore "no code" and ramble, and every reflection is repeated in
    later actor prompts."""
    prose = " ".join(FENCE.sub(" ", reply).split())
    sentences = SENTENCE_END.split(prose)[:REFLECTION_MAX_SENTENCES]
    reflection = " ".join(sentences)
    if len(reflection) > REFLECTION_MAX_CHARS:
        reflection = reflection[:REFLECTION_MAX_CHARS].rsplit(" ", 1)[0] + " ..."
    return reflection
