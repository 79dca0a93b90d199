"""The actor: writes the next candidates from the task, the lessons and the last failure."""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from codeheal.context import Context, current_context
from codeheal.llm import chat_model
from codeheal.llm.factory import MAX_TOKENS, completions_per_request, is_local
from codeheal.nodes.prepare import is_project
from codeheal.policy import attempt_limit, completion_allowance, needs_fresh_start
from codeheal.progress import AttemptStarted, emit
from codeheal.project.edits import canonical_reply
from codeheal.prompting.extraction import extract_code
from codeheal.prompting.fix_prompts import project_actor_messages, project_reply_start
from codeheal.prompting.model_call import estimate_prompt_tokens, total_usage
from codeheal.prompting.prompts import CLOSING_FENCE, actor_messages
from codeheal.state import State
from codeheal.steps import ModelCall, Steps


def make_actor(llm: BaseChatModel | None = None) -> Callable[[State], Steps[dict]]:
    """The actor node's body; `llm` overrides the model named in the run's Context."""

    def actor(state: State) -> Steps[dict]:
        context = current_context()
        # A retry samples at the retry temperature. The project form's attempt 1 only runs the
        # tests on the project as it is, so its first written repair is greedy; starting code
        # of the other form may come from a model (HumanEval's shared attempt 1), and counts.
        retry = bool(state.get("written") if is_project(state) else state.get("attempts"))
        # A fresh attempt is written from the first attempt's prompt: no failure, no lessons
        # of this run (plain resampling, or a run that was stuck).
        fresh = retry and (not context.feedback or needs_fresh_start(state, context))
        model = llm or chat_model(context, context.retry_temperature if retry else context.temperature)
        history = state.get("history") or []
        last_code = None  # None: no failure shown; "": one failed, its code is not shown
        if history and not fresh:
            last_code = history[-1]["code"] if context.show_failed_code else ""
        prefill = uses_prefill(context, llm)
        stop = (CLOSING_FENCE,) if prefill else ()
        if is_project(state):
            # Every project attempt repairs from the failing tests: no fresh start.
            fresh = False
            messages, extract = project_actor_messages(state, context, MAX_TOKENS), canonical_reply
            if prefill:
                start, stop = project_reply_start(state)
                messages.append(AIMessage(start))
        else:
            messages, extract = actor_messages(
                task=state["task"],
                tests=state["tests"],
                entry_point=state.get("entry_point"),
                reflections=[] if fresh else state.get("reflections") or [],
                memory=context.memory,
                last_code=last_code,
                last_feedback=None if fresh else state.get("feedback"),
                prefill=prefill,
                style=context.first_prompt,
            ), extract_code
        samples = context.retry_samples if retry else 1
        per_call = 1 if llm else completions_per_request(context)
        allowance = completion_allowance(
            state, context, prompt_tokens=estimate_prompt_tokens(messages),
            requests=-(-samples // per_call), samples=samples, wanted=MAX_TOKENS,
        )
        if not allowance:
            return {"candidates": [], "stop_reason": "budget"}
        emit(AttemptStarted(
            kind="attempt_started", attempt=(state.get("attempts") or 0) + 1,
            max_attempts=attempt_limit(state, context),
        ))
        replies = yield ModelCall(
            model, messages, stop=stop, samples=samples, per_call=per_call,
            max_tokens=allowance if context.max_tokens is not None else None,
        )
        # A reply without code becomes an empty candidate: the evaluator reports it as a
        # failed attempt ("no code in reply") instead of the run crashing. (The project form
        # keeps a reply without code: apply_reply refuses it, saying why.)
        return {
            "candidates": [extract(reply) or "" for reply, _ in replies],
            "generation": total_usage([usage for _, usage in replies]),
            "fresh_start": fresh,
            "written": (state.get("written") or 0) + 1,
        }

    return actor


def uses_prefill(context: Context, llm: BaseChatModel | None) -> bool:
    """Whether replies are started for the model (see Context.prefill)."""
    return context.prefill == "on" or (context.prefill == "auto" and llm is None and is_local(context))
