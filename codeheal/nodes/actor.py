"""The actor: draws the next candidates from the task, the reflections and the last failure (the
next node, prepare_candidates, prepares them to test); or takes the screen's, written without
a model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from langchain_core.language_models import BaseChatModel

from codeheal.context import Context, current_context
from codeheal.errors import DeadlineReached, PromptTooLargeError
from codeheal.forms.base import Draw
from codeheal.forms.choice import form_of
from codeheal.learning import chooser, run_store, settle
from codeheal.llm import chat_model
from codeheal.llm.factory import (
    MAX_TOKENS,
    completions_per_request,
    is_local,
    token_counter,
)
from codeheal.rules import (
    SHOWN_KINDS,
    Turn,
    attempt_limit,
    call_timeout,
    completion_allowance,
    hedges,
    model_context,
    out_of_time,
    sampling_temperature,
    seconds_left,
    turn,
    writes_fresh,
)
from codeheal.progress import AttemptStarted, CandidatesWritten, ModelSwitched, emit
from codeheal.prompting.model_call import (
    NO_USAGE,
    refused_candidate,
    sample_seed,
    total_usage,
)
from codeheal.state import AttemptState, Route, State, StopReason, Usage
from codeheal.steps import ModelCall, Steps
from codeheal.tokens import TokenCounter


def make_actor(llm: BaseChatModel | None = None) -> Callable[[AttemptState], Steps[dict]]:
    """The actor node's body; `llm` overrides the model named in the run's Context."""

    def actor(state: AttemptState) -> Steps[dict]:
        context = current_context()
        form = form_of(state.form)
        if out_of_time(state):
            return {"candidates": [], "stop_reason": "deadline", "route": None}
        if state.screen:
            return screening(state, context, state.screen)
        if state.repeats:
            return (yield from redraw(state, context, llm))
        retry = form.is_retry(state)
        rules = form.policy_for(context.policy)
        now = turn(state, context, rules)
        store = run_store()
        settle(state, store)
        attempt = state.attempts + 1
        shows, asked = chooser(store, now.model, attempt, SHOWN_KINDS)
        # A fresh attempt is written from the first attempt's prompt: no failure, no reflections
        # of this run (plain resampling, or a run that was stuck). A model taking over is
        # shown them: it continues with the run's memory.
        fresh = retry and now.handover is None and writes_fresh(state, rules, shows)
        route = (Route(attempt=attempt, kind=asked["kind"], action="fresh" if fresh else "shown", model=now.model)
                 if asked else None)
        hedge = fresh and hedges(state, rules, shows)
        calls = Calls.of(state, context, now, llm)
        candidates = yield from calls.draw(calls.draws(state, fresh=fresh, hedge=hedge))
        if not candidates and calls.stopped:
            return {"candidates": [], "stop_reason": calls.stopped, "route": None}
        return {"candidates": candidates, "usages": calls.usages, "fresh_start": fresh, "hedged": hedge,
                "route": route, "model": now.model}

    return actor


def redraw(state: AttemptState, context: Context, llm: BaseChatModel | None) -> Steps[dict]:
    """The actor's draw once more, when every reply of the retry repeated code that failed
    earlier in the run (prepare_candidates kept them as `repeats`): the same calls as the first
    draw, at least at the next retry's temperature, within the same budget; the repeats stay
    among the candidates, and are not tested again unless nothing new comes."""
    form = form_of(state.form)
    rules = form.policy_for(context.policy)
    calls = Calls.of(state, context, turn(state, context, rules), llm, usages=list(state.usages))
    hotter = sampling_temperature(replace(state, attempts=calls.attempt), rules, retry=True)
    draws = calls.draws(state, fresh=state.fresh_start, hedge=state.hedged)
    candidates = yield from calls.draw([replace(d, temperature=max(d.temperature, hotter)) for d in draws])
    if not candidates and calls.stopped == "deadline":
        return {"candidates": [], "stop_reason": "deadline"}
    return {"candidates": [*state.candidates, *candidates], "usages": calls.usages}


@dataclass
class Calls:
    """The model calls of one attempt: each draw within the run's token budget and time (a
    draw that does not fit is not made, one that runs into the deadline is cut), its replies
    turned into candidates, their usage kept."""

    state: State
    context: Context
    attempt: int
    now: Turn
    llm: BaseChatModel | None
    writer: Context
    counter: TokenCounter
    per_call: int
    usages: list[Usage] = field(default_factory=list)
    stopped: StopReason | None = None
    """Why the draws stopped before the last: the budget, or the run's deadline."""

    @classmethod
    def of(cls, state: State, context: Context, now: Turn, llm: BaseChatModel | None,
           usages: list[Usage] | None = None) -> Calls:
        """The calls of the attempt after `state`, written by the model whose turn it is
        (`now`), after the calls that used `usages`."""
        writer = model_context(context, now.model)  # the Context of the model whose turn it is
        counter = token_counter(llm or chat_model(writer, context.policy.temperature))
        per_call = 1 if llm else completions_per_request(writer)
        return cls(state, context, state.attempts + 1, now, llm, writer, counter, per_call, usages or [])

    def draws(self, state: State, *, fresh: bool, hedge: bool) -> list[Draw]:
        """The form's model calls for the attempt: from the first attempt's prompt when
        `fresh`, `hedge`d when its first sample is shown the failure (policy.hedges)."""
        form = form_of(state.form)
        prefill = uses_prefill(self.writer, self.llm)
        draws = form.draws(state, self.writer, fresh=fresh, prefill=prefill, counter=self.counter)
        if hedge:
            draws = hedged(form.draws(state, self.writer, fresh=False, prefill=prefill, counter=self.counter), draws)
        return draws

    def draw(self, draws: list[Draw]) -> Steps[list[str]]:
        """The candidates of `draws`, made in order until one does not fit the budget or the
        run's time (`stopped` says which)."""
        candidates: list[str] = []
        for draw in draws:
            if out_of_time(self.state):
                self.stopped = "deadline"
                break
            model = self.llm or chat_model(self.writer, draw.temperature)
            allowance = completion_allowance(
                self.state, self.context, prompt_tokens=self.counter.prompt_tokens(draw.messages),
                requests=-(-draw.samples // self.per_call), samples=draw.samples, wanted=draw.max_tokens,
                already=total_usage(self.usages)["tokens"],
            )
            if not allowance:
                self.stopped = "budget"
                break
            if not self.usages:
                if self.now.handover and self.now.previous:
                    emit(ModelSwitched(kind="model_switched", attempt=self.attempt, model=self.now.model,
                                       previous=self.now.previous, after=self.now.handover))
                emit(started(self.attempt, attempt_limit(self.state, self.context), self.state))
            try:
                replies = yield ModelCall(
                    model, draw.messages, stop=draw.stop, samples=draw.samples, per_call=self.per_call,
                    max_tokens=allowance if self.context.max_tokens is not None or draw.max_tokens != MAX_TOKENS else None,
                    seed=sample_seed(self.context.policy.seed, self.attempt, len(self.usages)),
                    timeout_s=call_timeout(self.state), attempt=self.attempt,
                )
            except DeadlineReached:
                self.stopped = "deadline"
                break
            except PromptTooLargeError as refused:  # a failed attempt saying so, not the run's end
                self.usages.append(NO_USAGE)
                return [*candidates, refused_candidate(refused)]
            self.usages += [usage for _, usage in replies]
            candidates += [draw.candidate(reply) for reply, _ in replies]
        return candidates


def hedged(shown: list[Draw], fresh: list[Draw]) -> list[Draw]:
    """A hedged retry's calls (rules.hedges): one sample of the first call shown the failure,
    tested first, then the fresh calls with one sample fewer."""
    rest = [replace(fresh[0], samples=fresh[0].samples - 1), *fresh[1:]]
    return [replace(shown[0], samples=1), *(draw for draw in rest if draw.samples)]


def screening(state: State, context: Context, candidates: list[str]) -> dict:
    """The attempt that tests the candidates written without a model (`screen`, which the
    form's record of attempt 1 set, with what they try and their time: `screen_plan`)."""
    attempt = state.attempts + 1
    emit(started(attempt, attempt_limit(replace(state, screened=True), context), state))
    written = CandidatesWritten(kind="candidates_written", attempt=attempt, seconds=0.0, prompt_tokens=0,
                                completion_tokens=0, mutants=len(candidates))
    if state.screen_plan is not None:
        written["screen"] = state.screen_plan["tries"]
        written["screen_seconds"] = state.screen_plan["seconds"]
    emit(written)
    return {"candidates": candidates, "generation": NO_USAGE,
            "fresh_start": False, "route": None, "model": None, "screened": True, "screen": []}


def started(attempt: int, max_attempts: int, state: State) -> AttemptStarted:
    """The progress event of an attempt that starts now, with the run's time left."""
    event = AttemptStarted(kind="attempt_started", attempt=attempt, max_attempts=max_attempts)
    left = seconds_left(state)
    if left is not None:
        event["seconds_left"] = round(max(left, 0.0), 1)
    return event


def uses_prefill(context: Context, llm: BaseChatModel | None) -> bool:
    """Whether replies are started for the model (see Context.prefill)."""
    return context.prefill == "on" or (context.prefill == "auto" and llm is None and is_local(context))
