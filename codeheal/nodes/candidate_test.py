"""The candidates of an attempt fanned out in ordered batches: one `test_candidate` task per
distinct candidate, sent with LangGraph's `Send`, each in its own sandbox job, a batch in
parallel. The candidates come prepared once (nodes/prepare_candidates.py: Form.prepare,
de-duplicated, ordered, sized) and kept in state; the routers only read them.
Candidates come in the order they are likeliest to pass (the screen's ranked mutants, the
greedy reply before sampled ones); after each batch the evaluator either sends the
next (`more_to_test`) or chooses among the results and records the attempt."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from langgraph.types import Send

from codeheal.context import current_context
from codeheal.errors import CodehealError
from codeheal.evaluation.checks import checks_after
from codeheal.evaluation.examples import user_checks
from codeheal.forms.choice import form_of
from codeheal.rules import deadline_in, job_seconds_left, test_run_limit
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Sandbox
from codeheal.state import AttemptState, CandidateJob
from codeheal.steps import SandboxRun, Steps

TEST_CANDIDATE = "test_candidate"
T = TypeVar("T")


FIRST_BATCH = 4
"""Candidates in an attempt's first batch; each later batch is as large as all before it
(4, 4, 8, 16, ...), so a pass among the first stops early and a screen with no pass
takes a few steps, not one per candidate."""


def candidate_sends(state: AttemptState) -> list[Send]:
    """One `test_candidate` task per prepared candidate of the next batch (all of them when
    choosing by generated inputs), run in the same step."""
    fields = ("form", *form_of(state.form).run_fields)
    shared = {name: getattr(state, name) for name in fields if getattr(state, name) is not None}
    if state.task_checks:
        shared["tests"] = user_checks(state)
    if state.generated_inputs:
        shared["tests"] = checks_after(shared["tests"], state.generated_inputs)
    done = {t["index"] for t in state.tested}
    pending = [p for p in state.prepared if p["index"] not in done]
    if not state.generated_inputs:
        pending = pending[:max(FIRST_BATCH, len(done))]
    if state.screened and not state.written:  # the screen's attempt: no model wrote these
        shared["screened"] = True
    if (left := job_seconds_left(state)) is not None:
        shared["seconds_left"] = left
    return [
        Send(TEST_CANDIDATE, CandidateJob(
            **shared, **({"change": p["change"]} if "change" in p else {}), candidate=p["code"], key=p["key"],
            index=p["index"], session=state.sandbox_session))
        for p in pending
    ]


def more_to_test(state: AttemptState) -> bool:
    """Whether the attempt's testing goes on: candidates are left untested and none of those
    tested passed, or one left could still win by a smaller change (its Prepared.size against
    the smallest passing one's; among equals the earlier wins, so an equal one left cannot).
    Choosing by generated inputs tests every candidate in one step."""
    if state.generated_inputs:
        return False
    prepared = state.prepared
    done = {t["index"] for t in state.tested}
    pending = [p["size"] for p in prepared if p["index"] not in done]
    if not pending:
        return False
    passed = [prepared[t["index"]]["size"] for t in state.tested if t["feedback"]["passed"]]
    return not passed or min(pending) < min(passed)


def make_candidate_test(sandbox: Sandbox | None = None) -> Callable[[CandidateJob], Steps[dict]]:
    """The test_candidate node's body: one candidate tested, its result added to `tested`.
    `sandbox` overrides the one named in the run's Context."""

    def test_candidate(job: CandidateJob) -> Steps[dict]:
        context = current_context()
        steps = form_of(job["form"]).test_steps(sandbox or sandbox_for(context), job, context)
        tested = yield from within_deadline(steps, deadline_in(job.get("seconds_left")))
        return {"tested": [{**tested, "key": job["key"]}]}

    return test_candidate


def within_deadline(steps: Steps[T], deadline: float | None) -> Steps[T]:
    """`steps` with each test run it yields limited to the run's time left when it starts
    (rules.test_run_limit): a run started just before the deadline does not run on for its
    whole limit past it."""
    value: Any = None
    error: CodehealError | None = None
    while True:
        try:
            call = steps.throw(error) if error is not None else steps.send(value)
        except StopIteration as done:
            return done.value
        if isinstance(call, SandboxRun):
            call = SandboxRun(call.sandbox, dataclasses.replace(
                call.job, timeout_s=test_run_limit(call.job.timeout_s, deadline)))
        try:
            value, error = (yield call), None
        except CodehealError as exc:  # raised at this yield: passed on to the body's
            value, error = None, exc
