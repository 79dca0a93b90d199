"""The candidates of an attempt fanned out in ordered batches: one `test_candidate` task per
distinct candidate, sent with LangGraph's `Send`, each in its own sandbox job, a batch in
parallel. The node that writes candidates prepares them once (`to_test`: Form.prepare,
de-duplicated, ordered, sized) and keeps them in state; the routers only read them.
Candidates come in the order they are likeliest to pass (the screen's ranked mutants, the
greedy reply before sampled ones); after each batch the evaluator either sends the
next (`more_to_test`) or chooses among the results and records the attempt."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from langgraph.types import Send

from codeheal.context import current_context
from codeheal.evaluation.checks import checks_after
from codeheal.evaluation.examples import user_checks
from codeheal.forms.choice import form_of
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Sandbox
from codeheal.state import Candidate, CandidateJob, Prepared, PreparedCandidate, State
from codeheal.steps import Steps

TEST_CANDIDATE = "test_candidate"


def prepared_of(state: State, candidates: list[Candidate]) -> dict[Candidate, Prepared]:
    """Each distinct text among `candidates` prepared once by the run's form (Form.prepare)."""
    form = form_of(state)
    return {code: form.prepare(state, code) for code in dict.fromkeys(candidates)}


def to_test(state: State, candidates: list[Candidate], prepared: dict[Candidate, Prepared] | None = None
            ) -> list[PreparedCandidate]:
    """The attempt's candidates to test (`prepared` in state), from the `candidates` a node
    wrote: one per key (Prepared.key), in the order drawn, each with how many drawn share it.
    One tried earlier in this run is left out when there is anything new: it would end the
    same way. `prepared`: what the node already prepared of them (the rest is prepared here)."""
    drawn = list(candidates) or [""]
    known = {**(prepared or {})}
    known |= prepared_of(state, [code for code in drawn if code not in known])
    copies = Counter(known[code]["key"] for code in drawn)
    distinct: dict[str, tuple[Candidate, Prepared]] = {}
    for code in drawn:
        distinct.setdefault(known[code]["key"], (code, known[code]))
    found = list(distinct.values())
    if not state.get("probes"):  # choosing among them, the attempt that passed before runs too
        tried = {t["key"] for t in state.get("tried") or []}
        found = [(code, p) for code, p in found if p["key"] not in tried] or found[:1]
    return [PreparedCandidate(**p, index=index, code=code, copies=copies[p["key"]])
            for index, (code, p) in enumerate(found)]


FIRST_BATCH = 4
"""Candidates in an attempt's first batch; each later batch is as large as all before it
(4, 4, 8, 16, ...), so a pass among the first stops early and a screen with no pass
takes a few steps, not one per candidate."""


def candidate_sends(state: State) -> list[Send]:
    """One `test_candidate` task per prepared candidate of the next batch (all of them when
    choosing by generated checks), run in the same step."""
    fields = ("form", *form_of(state).run_fields)
    shared = {name: state[name] for name in fields if state.get(name) is not None}  # type: ignore[literal-required]
    if state.get("task_checks"):
        shared["tests"] = user_checks(state)
    if state.get("probes"):
        shared["tests"] = checks_after(shared["tests"], state["probes"])
    done = {t["index"] for t in state.get("tested") or []}
    pending = [p for p in state.get("prepared") or [] if p["index"] not in done]
    if not state.get("probes"):
        pending = pending[:max(FIRST_BATCH, len(done))]
    if state.get("screened") and not state.get("written"):  # the screen's attempt: no model wrote these
        shared["screened"] = True
    return [
        Send(TEST_CANDIDATE, CandidateJob(
            **shared, **({"change": p["change"]} if "change" in p else {}), candidate=p["code"], key=p["key"],
            index=p["index"], session=state.get("sandbox_session")))
        for p in pending
    ]


def more_to_test(state: State) -> bool:
    """Whether the attempt's testing goes on: candidates are left untested and none of those
    tested passed, or one left could still win by a smaller change (its Prepared.size against
    the smallest passing one's; among equals the earlier wins, so an equal one left cannot).
    Choosing by generated checks tests every candidate in one step."""
    if state.get("probes"):
        return False
    prepared = state.get("prepared") or []
    done = {t["index"] for t in state.get("tested") or []}
    pending = [p["size"] for p in prepared if p["index"] not in done]
    if not pending:
        return False
    passed = [prepared[t["index"]]["size"] for t in state.get("tested") or [] if t["feedback"]["passed"]]
    return not passed or min(pending) < min(passed)


def make_candidate_test(sandbox: Sandbox | None = None) -> Callable[[CandidateJob], Steps[dict]]:
    """The test_candidate node's body: one candidate tested, its result added to `tested`.
    `sandbox` overrides the one named in the run's Context."""

    def test_candidate(job: CandidateJob) -> Steps[dict]:
        context = current_context()
        tested = yield from form_of(job).test_steps(sandbox or sandbox_for(context), job, context)
        return {"tested": [{**tested, "key": job["key"]}]}

    return test_candidate
