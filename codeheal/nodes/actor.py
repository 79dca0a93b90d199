"""The actor: writes the next candidates from the task, the lessons and the last failure."""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel

from codeheal.context import Context, current_context
from codeheal.forms.choice import form_of
from codeheal.llm import chat_model
from codeheal.llm.factory import (
    MAX_TOKENS,
    completions_per_request,
    is_local,
    token_counter,
)
from codeheal.learning import chooser, run_store, settle
from codeheal.policy import SHOWN_KINDS, attempt_limit, completion_allowance, model_context, turn, writes_fresh
from codeheal.progress import AttemptStarted, CandidatesWritten, ModelSwitched, emit
from codeheal.prompting.model_call import NO_USAGE, total_usage
from codeheal.state import Route, State
from codeheal.steps import ModelCall, Steps


def make_actor(llm: BaseChatModel | None = None) -> Callable[[State], Steps[dict]]:
    """The actor node's body; `llm` overrides the model named in the run's Context."""

    def actor(state: State) -> Steps[dict]:
        context = current_context()
        form = form_of(state)
        screen = form.screen(state, context)
        if screen:
            return screening(state, context, screen)
        retry = form.is_retry(state)
        rules = form.policy_for(context.policy)
        now = turn(state, context, rules)
        writer = model_context(context, now.model)  # the Context of the model whose turn it is
        store = run_store()
        settle(state, store)
        attempt = (state.get("attempts") or 0) + 1
        shows, asked = chooser(store, now.model, attempt, SHOWN_KINDS)
        # A fresh attempt is written from the first attempt's prompt: no failure, no lessons
        # of this run (plain resampling, or a run that was stuck). A model taking over is
        # shown them: it continues with the run's memory.
        fresh = retry and now.handover is None and writes_fresh(state, rules, shows)
        route = (Route(attempt=attempt, kind=asked["kind"], action="fresh" if fresh else "shown", model=now.model)
                 if asked else None)
        counter = token_counter(llm or chat_model(writer, context.policy.temperature))
        draws = form.draws(state, writer, fresh=fresh, prefill=uses_prefill(writer, llm), counter=counter)
        per_call = 1 if llm else completions_per_request(writer)
        candidates: list[str] = []
        usages = []
        for draw in draws:
            model = llm or chat_model(writer, draw.temperature)
            allowance = completion_allowance(
                state, context, prompt_tokens=counter.prompt_tokens(draw.messages),
                requests=-(-draw.samples // per_call), samples=draw.samples, wanted=draw.max_tokens,
                already=total_usage(usages)["tokens"],
            )
            if not allowance:
                break
            if not usages:
                if now.handover and now.previous:
                    emit(ModelSwitched(kind="model_switched", attempt=attempt, model=now.model,
                                       previous=now.previous, after=now.handover))
                emit(AttemptStarted(kind="attempt_started", attempt=attempt, max_attempts=attempt_limit(state, context)))
            replies = yield ModelCall(
                model, draw.messages, stop=draw.stop, samples=draw.samples, per_call=per_call,
                max_tokens=allowance if context.max_tokens is not None or draw.max_tokens != MAX_TOKENS else None,
            )
            usages += [usage for _, usage in replies]
            candidates += [draw.candidate(reply) for reply, _ in replies]
        if not usages:
            return {"candidates": [], "stop_reason": "budget", "route": None}
        generation = total_usage(usages)
        emit(CandidatesWritten(
            kind="candidates_written", attempt=(state.get("attempts") or 0) + 1, seconds=generation["seconds"],
            prompt_tokens=generation["prompt_tokens"], completion_tokens=generation["completion_tokens"],
        ))
        return {
            "candidates": candidates,
            "generation": generation,
            "fresh_start": fresh,
            "route": route,
            "model": now.model,
            "written": (state.get("written") or 0) + 1,
        }

    return actor


def screening(state: State, context: Context, candidates: list[str]) -> dict:
    """The attempt that tests the form's candidates written without a model (Form.screen)."""
    attempt = (state.get("attempts") or 0) + 1
    emit(AttemptStarted(kind="attempt_started", attempt=attempt,
                        max_attempts=attempt_limit({**state, "screened": True}, context)))
    emit(CandidatesWritten(kind="candidates_written", attempt=attempt, seconds=0.0, prompt_tokens=0,
                           completion_tokens=0, mutants=len(candidates)))
    return {"candidates": candidates, "generation": NO_USAGE, "fresh_start": False, "route": None, "model": None,
            "screened": True}


def uses_prefill(context: Context, llm: BaseChatModel | None) -> bool:
    """Whether replies are started for the model (see Context.prefill)."""
    return context.prefill == "on" or (context.prefill == "auto" and llm is None and is_local(context))
