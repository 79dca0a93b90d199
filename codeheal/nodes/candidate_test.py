"""The candidates of an attempt fanned out in ordered batches: one `test_candidate` task per
distinct candidate, sent with LangGraph's `Send`, each in its own sandbox job, a batch in
parallel. Candidates come in the order they are likeliest to pass (the screen's ranked
mutants, the greedy reply before sampled ones); after each batch the evaluator either sends the
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
from codeheal.state import Candidate, CandidateJob, State
from codeheal.steps import Steps

TEST_CANDIDATE = "test_candidate"


def candidates_to_test(state: State) -> list[tuple[str, Candidate, dict]]:
    """The distinct candidates (by the form's `distinct`), each with its key and the fields of
    its test job that finding the key computed, in the order they were drawn. One tried
    earlier in this run is left out when there is anything new: it would end the same way."""
    form = form_of(state)
    distinct: dict[str, tuple[Candidate, dict]] = {}
    for code in state.get("candidates") or [""]:
        key, known = form.distinct(state, code)
        distinct.setdefault(key, (code, known))
    found = [(key, code, known) for key, (code, known) in distinct.items()]
    if state.get("probes"):  # choosing among them: the attempt that passed before runs too
        return found
    tried = {t["key"] for t in state.get("tried") or []}
    new = [(key, code, known) for key, code, known in found if key not in tried]
    return new or found[:1]


FIRST_BATCH = 4
"""Candidates in an attempt's first batch; each later batch is as large as all before it
(4, 4, 8, 16, ...), so a pass among the first stops early and a screen with no pass
takes a few steps, not one per candidate."""


def candidate_sends(state: State) -> list[Send]:
    """One `test_candidate` task per candidate of the next batch (all of them when choosing
    by generated checks), run in the same step."""
    fields = ("form", *form_of(state).run_fields)
    shared = {name: state[name] for name in fields if state.get(name) is not None}  # type: ignore[literal-required]
    if state.get("task_checks"):
        shared["tests"] = user_checks(state)
    if state.get("probes"):
        shared["tests"] = checks_after(shared["tests"], state["probes"])
    done = {t["index"] for t in state.get("tested") or []}
    pending = [(index, found) for index, found in enumerate(candidates_to_test(state)) if index not in done]
    if not state.get("probes"):
        pending = pending[:max(FIRST_BATCH, len(done))]
    if state.get("screened") and not state.get("written"):  # the screen's attempt: no model wrote these
        shared["screened"] = True
    return [
        Send(TEST_CANDIDATE, CandidateJob(
            **shared, **known, candidate=code, key=key, index=index, session=state.get("sandbox_session")))
        for index, (key, code, known) in pending
    ]


def more_to_test(state: State) -> bool:
    """Whether the attempt's testing goes on: candidates are left untested and none of those
    tested passed, or one left could still win by a smaller change (Form.planned_size against
    the smallest passing one's Form.change_size; among equals the earlier wins, so an equal
    one left cannot). Choosing by generated checks tests every candidate in one step."""
    if state.get("probes"):
        return False
    tested = state.get("tested") or []
    done = {t["index"] for t in tested}
    pending = [known for index, (_, _, known) in enumerate(candidates_to_test(state)) if index not in done]
    if not pending:
        return False
    form = form_of(state)
    passed = [form.change_size(t) for t in tested if t["feedback"]["passed"]]
    return not passed or any(form.planned_size(state, known) < min(passed) for known in pending)


def make_candidate_test(sandbox: Sandbox | None = None) -> Callable[[CandidateJob], Steps[dict]]:
    """The test_candidate node's body: one candidate tested, its result added to `tested`.
    `sandbox` overrides the one named in the run's Context."""

    def test_candidate(job: CandidateJob) -> Steps[dict]:
        context = current_context()
        tested = yield from form_of(job).test_steps(sandbox or sandbox_for(context), job, context)
        return {"tested": [{**tested, "key": job["key"]}]}

    return test_candidate
