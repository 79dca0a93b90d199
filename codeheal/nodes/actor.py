"""The actor: writes the next candidates from the task, the reflections and the last failure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from langchain_core.language_models import BaseChatModel

from codeheal.context import Context, current_context
from codeheal.errors import PromptTooLargeError
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
from codeheal.nodes.candidate_test import prepared_of, to_test
from codeheal.rules import (
    SHOWN_KINDS,
    Turn,
    attempt_limit,
    completion_allowance,
    hedges,
    model_context,
    redraws,
    sampling_temperature,
    turn,
    writes_fresh,
)
from codeheal.progress import AttemptStarted, CandidatesWritten, ModelSwitched, emit
from codeheal.prompting.model_call import NO_USAGE, refused_candidate, sample_seed, total_usage
from codeheal.state import Candidate, Prepared, Route, State
from codeheal.steps import ModelCall, Steps
from codeheal.tokens import TokenCounter


def make_actor(llm: BaseChatModel | None = None) -> Callable[[State], Steps[dict]]:
    """The actor node's body; `llm` overrides the model named in the run's Context."""

    def actor(state: State) -> Steps[dict]:
        context = current_context()
        form = form_of(state.form)
        if state.screen:
            return screening(state, context, state.screen)
        retry = form.is_retry(state)
        rules = form.policy_for(context.policy)
        now = turn(state, context, rules)
        writer = model_context(context, now.model)  # the Context of the model whose turn it is
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
        counter = token_counter(llm or chat_model(writer, context.policy.temperature))
        prefill = uses_prefill(writer, llm)
        draws = form.draws(state, writer, fresh=fresh, prefill=prefill, counter=counter)
        if fresh and hedges(state, rules, shows):
            draws = hedged(form.draws(state, writer, fresh=False, prefill=prefill, counter=counter), draws)
        per_call = 1 if llm else completions_per_request(writer)
        calls = Calls(state, context, attempt, now, llm, writer, counter, per_call)
        candidates = yield from calls.draw(draws)
        prepared = prepared_of(state, candidates)
        if retry and calls.usages and redraws(rules) and repeats_tried(state, prepared):
            # Every reply repeats code that failed earlier in the run: its test would end the
            # same way. Drawn once more, as the next retry would be; the repeats are not tested.
            hotter = sampling_temperature(replace(state, attempts=attempt), rules, retry=True)
            candidates += yield from calls.draw([replace(d, temperature=max(d.temperature, hotter)) for d in draws])
        usages = calls.usages
        if not usages:
            return {"candidates": [], "stop_reason": "budget", "route": None}
        generation = total_usage(usages)
        emit(CandidatesWritten(
            kind="candidates_written", attempt=state.attempts + 1, seconds=generation["seconds"],
            prompt_tokens=generation["prompt_tokens"], completion_tokens=generation["completion_tokens"],
        ))
        return {
            "candidates": candidates,
            "prepared": to_test(state, candidates, prepared),
            "generation": generation,
            "fresh_start": fresh,
            "route": route,
            "model": now.model,
            "written": state.written + 1,
        }

    return actor


@dataclass
class Calls:
    """The model calls of one attempt: each draw within the run's token budget (a draw that
    does not fit is not made), its replies turned into candidates, their usage kept."""

    state: State
    context: Context
    attempt: int
    now: Turn
    llm: BaseChatModel | None
    writer: Context
    counter: TokenCounter
    per_call: int
    usages: list = field(default_factory=list)

    def draw(self, draws: list[Draw]) -> Steps[list[str]]:
        """The candidates of `draws`, made in order until one does not fit the budget."""
        candidates: list[str] = []
        for draw in draws:
            model = self.llm or chat_model(self.writer, draw.temperature)
            allowance = completion_allowance(
                self.state, self.context, prompt_tokens=self.counter.prompt_tokens(draw.messages),
                requests=-(-draw.samples // self.per_call), samples=draw.samples, wanted=draw.max_tokens,
                already=total_usage(self.usages)["tokens"],
            )
            if not allowance:
                break
            if not self.usages:
                if self.now.handover and self.now.previous:
                    emit(ModelSwitched(kind="model_switched", attempt=self.attempt, model=self.now.model,
                                       previous=self.now.previous, after=self.now.handover))
                emit(AttemptStarted(kind="attempt_started", attempt=self.attempt,
                                    max_attempts=attempt_limit(self.state, self.context)))
            try:
                replies = yield ModelCall(
                    model, draw.messages, stop=draw.stop, samples=draw.samples, per_call=self.per_call,
                    max_tokens=allowance if self.context.max_tokens is not None or draw.max_tokens != MAX_TOKENS else None,
                    seed=sample_seed(self.context.policy.seed, self.attempt, len(self.usages)),
                )
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


def repeats_tried(state: State, prepared: dict[Candidate, Prepared]) -> bool:
    """Whether every candidate was tested before in this run (by its Prepared.key)."""
    tried = {t["key"] for t in state.tried}
    return bool(prepared) and all(p["key"] in tried for p in prepared.values())


def screening(state: State, context: Context, candidates: list[str]) -> dict:
    """The attempt that tests the candidates written without a model (`screen`, which the
    form's record of attempt 1 set)."""
    attempt = state.attempts + 1
    emit(AttemptStarted(kind="attempt_started", attempt=attempt,
                        max_attempts=attempt_limit(replace(state, screened=True), context)))
    emit(CandidatesWritten(kind="candidates_written", attempt=attempt, seconds=0.0, prompt_tokens=0,
                           completion_tokens=0, mutants=len(candidates)))
    return {"candidates": candidates, "prepared": to_test(state, candidates), "generation": NO_USAGE,
            "fresh_start": False, "route": None, "model": None, "screened": True, "screen": []}


def uses_prefill(context: Context, llm: BaseChatModel | None) -> bool:
    """Whether replies are started for the model (see Context.prefill)."""
    return context.prefill == "on" or (context.prefill == "auto" and llm is None and is_local(context))
