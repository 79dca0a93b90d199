"""The evaluator node, after each batch of parallel `test_candidate` tasks: chooses among an attempt's
tested candidates and records the attempt with its Feedback (the judging of one candidate is
`codeheal.evaluation`'s). What happens next is the rules' decision (rules.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from codeheal.context import current_context
from codeheal.evaluation.examples import user_checks
from codeheal.evaluation.feedback import summarize
from codeheal.forms.choice import form_of
from codeheal.nodes.candidate_test import more_to_test
from codeheal.nodes.selection import (
    choose_by_agreement,
    drawn_copies,
    visible_feedback,
    wants_more_samples,
)
from codeheal.rules import out_of_time, replaces_best, screen_time_up
from codeheal.progress import AttemptTested, emit
from codeheal.prompting.model_call import usage_fields
from codeheal.state import (
    Attempt,
    AttemptState,
    Feedback,
    Selection,
    TestedCandidate,
    Tried,
)


def evaluator(state: AttemptState) -> dict:
    """The evaluator node: after a batch of parallel `test_candidate` tasks, leaves `tested`
    as it is while the attempt's testing goes on (candidate_test.more_to_test); else chooses
    among the tested candidates, records the attempt and its Feedback, and empties `tested`
    for the next attempt. Candidates left untested once the run's time is out
    (rules.out_of_time) are not sent: the attempt is recorded with those tested, and the run
    ends (stop_reason "deadline"). So are the screen's left untested once its time is up
    (rules.screen_time_up), and the run goes on to the model's attempts."""
    cut = more_to_test(state) and out_of_time(state)
    screen_over = more_to_test(state) and screen_time_up(state)
    if more_to_test(state) and not (cut or screen_over):
        return {}  # `tested` kept: the router sends the next batch
    tested = sorted(state.tested, key=lambda t: t["index"])
    if state.generated_inputs:
        if wants_more_samples(state, current_context()):
            return {}  # `tested` kept: the router asks the selector for the second round
        return {**_record_selection(state, tested), "tested": None, "generated_inputs": None, "select_round": None}
    prepared = state.prepared
    choice = Choice(size=lambda tested: prepared[tested["index"]]["size"])
    for candidate in tested:
        choice.add(candidate)
    tried = state.tried
    before = {t["key"] for t in tried}
    untested = len(state.prepared) - len(tested) if cut or screen_over else 0
    update = _record(state, choice, tested, repeat=all(t.get("key") in before for t in tested), untested=untested)
    tried = [*tried, *(Tried(key=t.get("key") or "", summary=summarize(t["feedback"])) for t in tested)]
    if cut:
        update["stop_reason"] = "deadline"
    return {**update, "tested": None, "tried": tried}


def _record_selection(state: AttemptState, tested: list[TestedCandidate]) -> dict:
    """The attempt that chose by execution on generated inputs. Its verdict is the user's tests' alone:
    the chosen candidate's results on them (candidate 0 passed them in the attempt before)."""
    tests, generated_inputs = user_checks(state), state.generated_inputs or ""
    agreement = choose_by_agreement(tested, tests, generated_inputs, drawn_copies(state))
    chosen = next(t for t in tested if t["index"] == agreement.index)
    feedback = state.feedback if agreement.index == 0 else visible_feedback(chosen["feedback"], tests, generated_inputs)
    assert feedback is not None and feedback["passed"], "only candidates that pass the user's tests are chosen"
    choice = Choice(best={**chosen, "feedback": feedback}, tested=len(tested),
                    sandbox_seconds=sum(t["feedback"]["seconds"] for t in tested))
    return _record(state, choice, tested, selection=agreement.selection)


@dataclass
class Choice:
    """The best of an attempt's tested candidates (by `rules.replaces_best`, their changes
    measured by `size`: their Prepared.size), and the sandbox time all of them took."""

    best: TestedCandidate | None = None
    tested: int = 0
    sandbox_seconds: float = 0.0
    size: Callable[[TestedCandidate], int] = lambda tested: 0

    def add(self, tested: TestedCandidate) -> None:
        """Take one tested candidate (in candidate order) into account."""
        feedback = tested["feedback"]
        self.tested += 1
        self.sandbox_seconds += feedback["seconds"]
        if self.best is None:
            self.best = tested
            return
        if replaces_best(feedback, self.best["feedback"], smaller=self.size(tested) < self.size(self.best)):
            self.best = tested

    def attempt_feedback(self) -> Feedback:
        """The chosen candidate's feedback, timed as the whole attempt's sandbox work."""
        assert self.best is not None, "no candidate was tested"
        return {**self.best["feedback"], "seconds": round(self.sandbox_seconds, 3)}


def _record(state: AttemptState, choice: Choice, tested: list[TestedCandidate], selection: Selection | None = None, *,
            repeat: bool = False, untested: int = 0) -> dict:
    """The attempt, its Feedback and what it cost, added to the run's history, with what the
    form adds to it and to the run (Form.record); `repeat`: every candidate it tested had been
    tried before; `untested`: how many it left untested when its time was up."""
    feedback = choice.attempt_feedback()
    best = choice.best
    assert best is not None
    form_fields, run_fields = form_of(state.form).record(state, best, tested, current_context())
    attempts = state.attempts + 1
    generation = state.generation
    record = Attempt(
        attempt=attempts,
        code=best["code"] or "",  # "" also for the project as it is: no code was written
        candidates_tested=choice.tested,
        fresh_start=state.fresh_start,
        summary=summarize(feedback),
        passed=feedback["passed"],
        passed_count=feedback["passed_count"],
        total=feedback["total"],
        reflection=None,
        **usage_fields(generation),
        seconds=round(generation["seconds"] + feedback["seconds"], 3),
        sandbox_seconds=feedback["seconds"],
        **form_fields,
    )
    record["repeat"] = repeat
    if state.model:
        record["model"] = state.model
    if selection is not None:
        record["selection"] = selection
        record["summary"] += (
            f" (chosen by execution: {selection['agreeing']} of {selection['candidates']} candidates, of which "
            f"{selection['eligible']} pass the tests, give its outputs on {selection['generated_inputs']} generated inputs)"
        )
    event = AttemptTested(
        kind="tests_result", attempt=attempts, passed=feedback["passed"],
        passed_count=feedback["passed_count"], total=feedback["total"],
        summary=record["summary"], seconds=record["seconds"], sandbox_seconds=feedback["seconds"],
        isolation=feedback["isolation"],
    )
    if "time_limit_s" in feedback:
        event["time_limit_s"] = feedback["time_limit_s"]
    if "in_test_process" in feedback:
        event["in_test_process"] = feedback["in_test_process"]
    if choice.tested > 1:
        event["candidates"] = choice.tested
    if untested:
        event["untested"] = untested
    emit(event)
    return {
        **run_fields,
        "attempts": attempts,
        "feedback": feedback,
        "history": [*state.history, record],
        "candidates": [],
        "prepared": [],
    }
