"""An attempt's candidates are fanned out as parallel `test_candidate` tasks (LangGraph Send),
each in its own sandbox job; the evaluator then chooses among all of them."""

from __future__ import annotations

import threading

from doubles import (
    ADD_TESTS,
    BAD_ADD,
    GOOD_ADD,
    CountingSandbox,
    fenced,
    node_updates,
    scripted,
)

from codeheal import build_graph
from codeheal.context import resolve
from codeheal.nodes.evaluator import Choice
from codeheal.sandboxes.base import Job, RunResult

OTHER_GOOD = "def add(a, b):\n    return sum((a, b))\n"
WRONG = "def add(a, b):\n    return 42\n"


class MeetingSandbox(CountingSandbox):
    """Runs a job only once `parties` jobs are running at the same time: a sequential
    evaluator would break the barrier (BrokenBarrierError) instead of passing. (The sync
    graph runs each task in a worker thread of its own, with its own event loop: waiting
    there blocks only that task.)"""

    def __init__(self, parties: int) -> None:
        super().__init__()
        self.barrier = threading.Barrier(parties, timeout=30)

    async def arun(self, job: Job) -> RunResult:
        self.barrier.wait()
        return await super().arun(job)


def stream(model, sandbox, **context) -> list[tuple[str, dict]]:
    app = build_graph(llm=model, sandbox=sandbox).compile()
    updates = app.stream({"task": "Add two numbers.", "tests": ADD_TESTS}, context=resolve(context).context,
                         stream_mode="updates", subgraphs=True)
    return node_updates(updates)


def test_a_retry_s_candidates_are_tested_at_the_same_time_in_their_own_jobs():
    sandbox = MeetingSandbox(parties=3)
    model = scripted(fenced(BAD_ADD), "lesson", fenced(WRONG), fenced(GOOD_ADD), fenced(OTHER_GOOD))
    sandbox.barrier = threading.Barrier(1, timeout=30)  # attempt 1 has one candidate
    steps = []
    app = build_graph(llm=model, sandbox=sandbox).compile()
    for node, values in node_updates(app.stream({"task": "Add two numbers.", "tests": ADD_TESTS},
                                                context=resolve({"retry_samples": 3}).context,
                                                stream_mode="updates", subgraphs=True)):
        steps.append(node)
        if node == "reflector":
            sandbox.barrier = threading.Barrier(3, timeout=30)
        if node == "evaluator" and values["attempts"] == 2:
            record = values["history"][-1]
    assert steps == ["prepare", "actor", "prepare_candidates", "test_candidate", "evaluator", "reflector", "actor",
                     "prepare_candidates", "test_candidate", "test_candidate", "test_candidate", "evaluator", "finish"]
    assert len(sandbox.jobs) == 4 and len({job.session for job in sandbox.jobs}) == 1
    # all three ran; the earlier of the two that passed is kept
    assert record["candidates_tested"] == 3 and record["code"].strip() == GOOD_ADD.strip()


def test_the_evaluator_empties_the_gathered_results_for_the_next_attempt():
    model = scripted(fenced(BAD_ADD), "lesson", fenced(WRONG), fenced(GOOD_ADD))
    updates = stream(model, CountingSandbox(), retry_samples=2)
    gathered = [values["tested"] for node, values in updates if node == "test_candidate"]
    assert [len(t) for t in gathered] == [1, 1, 1]
    assert all(values["tested"] is None for node, values in updates if node == "evaluator")


def result_of(index: int, passed: bool, passed_count: int, seconds: float = 0.5) -> dict:
    feedback = {"passed": passed, "passed_count": passed_count, "total": 3, "seconds": seconds}
    return {"index": index, "code": f"code {index}", "feedback": feedback}


def test_choice_keeps_the_first_that_passed_else_the_most_checks_and_sums_the_sandbox_time():
    choice = Choice()
    for t in [result_of(0, False, 2), result_of(1, True, 3), result_of(2, True, 3)]:
        choice.add(t)
    assert choice.best["code"] == "code 1" and choice.tested == 3
    assert choice.attempt_feedback()["seconds"] == 1.5
    choice = Choice()
    for t in [result_of(0, False, 1), result_of(1, False, 2), result_of(2, False, 2)]:
        choice.add(t)
    assert choice.best["code"] == "code 1"
