"""The candidates of an attempt fanned out in ordered batches: one `test_candidate` task per
distinct candidate, sent with LangGraph's `Send`, each in its own sandbox job, a batch in
parallel. The candidates come prepared once (nodes/prepare_candidates.py: Form.prepare,
de-duplicated, ordered, sized) and kept in state; the routers only read them.
Candidates come in the order they are likeliest to pass (the screen's ranked mutants, the
greedy reply before sampled ones); after each batch the evaluator either sends the
next (`more_to_test`) or chooses among the results and records the attempt."""

from __future__ import annotations

from collections.abc import Callable

from langgraph.types import Send

from codeheal.context import current_context
from codeheal.evaluation.checks import checks_after
from codeheal.evaluation.examples import user_checks
from codeheal.forms.choice import form_of
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Sandbox
from codeheal.state import AttemptState, CandidateJob
from codeheal.steps import Steps

TEST_CANDIDATE = "test_candidate"


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
        tested = yield from form_of(job["form"]).test_steps(sandbox or sandbox_for(context), job, context)
        return {"tested": [{**tested, "key": job["key"]}]}

    return test_candidate
