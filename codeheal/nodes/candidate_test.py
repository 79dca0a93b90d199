"""The candidates of an attempt fanned out: one `test_candidate` task per distinct candidate,
sent with LangGraph's `Send`, each in its own sandbox job, all of them in parallel. The
evaluator then chooses among the results and records the attempt."""

from __future__ import annotations

from collections.abc import Callable

from langgraph.types import Send

from codeheal.context import current_context
from codeheal.forms import form_of
from codeheal.nodes.selection import combined_tests
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Sandbox
from codeheal.state import Candidate, CandidateJob, State
from codeheal.steps import Steps

TEST_CANDIDATE = "test_candidate"


def candidates_to_test(state: State) -> list[Candidate]:
    """The distinct candidates, new code first. Code that an earlier attempt of this run
    already failed with is left out when there is anything new: it would fail the same way."""
    distinct = list(dict.fromkeys(state.get("candidates") or [""]))
    if state.get("probes"):  # choosing among them: the attempt that passed before runs too
        return distinct
    failed_before = {attempt["code"] for attempt in state.get("history") or []}
    new = [code for code in distinct if code not in failed_before]
    return new or distinct[:1]


def candidate_sends(state: State) -> list[Send]:
    """One `test_candidate` task per candidate to test, all run in the same step."""
    fields = ("form", *form_of(state).run_fields)
    shared = {name: state[name] for name in fields if state.get(name) is not None}  # type: ignore[literal-required]
    if state.get("probes"):
        shared["tests"] = combined_tests(state["tests"], state["probes"])
    return [
        Send(TEST_CANDIDATE, CandidateJob(**shared, candidate=code, index=index, session=state.get("sandbox_session")))
        for index, code in enumerate(candidates_to_test(state))
    ]


def make_candidate_test(sandbox: Sandbox | None = None) -> Callable[[CandidateJob], Steps[dict]]:
    """The test_candidate node's body: one candidate tested, its result added to `tested`.
    `sandbox` overrides the one named in the run's Context."""

    def test_candidate(job: CandidateJob) -> Steps[dict]:
        context = current_context()
        tested = yield from form_of(job).test_steps(sandbox or sandbox_for(context), job, context)
        return {"tested": [tested]}

    return test_candidate
