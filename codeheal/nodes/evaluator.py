"""The evaluator: runs the candidates against the tests in a sandbox and records the attempt
with its Feedback. What happens next is the loop policy's decision (graph/policy.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from codeheal.context import current_context
from codeheal.nodes.checks import check_names, parse_tests
from codeheal.nodes.feedback import attempt_feedback, run_feedback, summarize, syntax_feedback, tamper_feedback
from codeheal.nodes.fix_prompts import run_failures
from codeheal.nodes.jobs import make_job
from codeheal.nodes.lint import lint_notes
from codeheal.nodes.model_call import NO_USAGE
from codeheal.nodes.prepare import is_project
from codeheal.nodes.project_evaluation import project_evaluation_steps
from codeheal.nodes.steps import SandboxRun, Steps, arun_steps, run_steps
from codeheal.progress import AttemptTested, emit
from codeheal.project.edits import EditResult
from codeheal.project.task import UNCHANGED
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import RunResult, Sandbox
from codeheal.state import Attempt, ChangedDefinition, Feedback, State

NO_CODE = "no code in reply: the reply had no Python code block"


def feedback_without_running(candidate: str, tamper_scan: bool = True) -> Feedback | None:
    """Feedback for a candidate that needs no sandbox to judge: none, a SyntaxError, or
    (with `tamper_scan`) code that reaches into the test harness."""
    if not candidate.strip():
        return attempt_feedback(error=NO_CODE)
    return syntax_feedback(candidate) or (tamper_feedback(candidate) if tamper_scan else None)


def evaluation_steps(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Steps[Feedback]:
    """The feedback on one candidate: judged without running when it can be, else tested."""
    feedback = feedback_without_running(candidate, tamper_scan)
    if feedback is not None:
        return feedback
    result = yield SandboxRun(sandbox, make_job(candidate, tests, timeout_s, session))
    feedback = _from_run(result, tests)
    return feedback if feedback["passed"] else {**feedback, "lint": lint_notes(candidate)}


def evaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Feedback:
    """The feedback on one candidate (blocking). Raises SandboxError when the sandbox could
    not run it."""
    return run_steps(evaluation_steps(sandbox, candidate, tests, timeout_s, session, tamper_scan=tamper_scan))


async def aevaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Feedback:
    """evaluate_candidate without blocking the event loop."""
    return await arun_steps(evaluation_steps(sandbox, candidate, tests, timeout_s, session, tamper_scan=tamper_scan))


def make_evaluator(sandbox: Sandbox | None = None) -> Callable[[State], Steps[dict]]:
    """The evaluator node's body: tests the candidates, records the attempt and its
    Feedback. `sandbox` overrides the one named in the run's Context."""

    def evaluator(state: State) -> Steps[dict]:
        context = current_context()
        chosen = sandbox or sandbox_for(context)
        session = state.get("sandbox_session") or uuid.uuid4().hex
        choice = Choice()
        update: dict = {"sandbox_session": session}
        for candidate in candidates_to_test(state):
            edit = None
            if is_project(state):
                feedback, edit = yield from project_evaluation_steps(chosen, candidate, state, context, session)
                if candidate == UNCHANGED:
                    update["repair_failures"] = run_failures(feedback)
            else:
                feedback = yield from evaluation_steps(
                    chosen, candidate, state["tests"], context.timeout_s, session, tamper_scan=context.tamper_scan
                )
            if choice.add(candidate, feedback, edit):
                break
        return {**_record(state, choice), **update}

    return evaluator


def candidates_to_test(state: State) -> list[str]:
    """The distinct candidates, new code first. Code that an earlier attempt of this run
    already failed with is left out when there is anything new: it would fail the same way."""
    distinct = list(dict.fromkeys(state.get("candidates") or [""]))
    failed_before = {attempt["code"] for attempt in state.get("history") or []}
    new = [code for code in distinct if code not in failed_before]
    return new or distinct[:1]


@dataclass
class Choice:
    """The best of an attempt's candidates so far: the one that passed the most checks, the
    earlier one among equals; and the sandbox time all of them took."""

    code: str = ""
    feedback: Feedback | None = None
    tested: int = 0
    sandbox_seconds: float = 0.0
    edit: EditResult | None = None
    """Project form: what the chosen candidate changed."""

    def add(self, code: str, feedback: Feedback, edit: EditResult | None = None) -> bool:
        """Take one tested candidate into account; True once one has passed (stop testing)."""
        self.tested += 1
        self.sandbox_seconds += feedback["seconds"]
        if self.feedback is None or feedback["passed_count"] > self.feedback["passed_count"] or (
            feedback["passed"] and not self.feedback["passed"]
        ):
            self.code, self.feedback, self.edit = code, feedback, edit
        return feedback["passed"]

    def attempt_feedback(self) -> Feedback:
        """The chosen candidate's feedback, timed as the whole attempt's sandbox work."""
        assert self.feedback is not None, "no candidate was tested"
        return {**self.feedback, "seconds": round(self.sandbox_seconds, 3)}


def _from_run(result: RunResult, tests: str) -> Feedback:
    return run_feedback(result, check_names(parse_tests(tests)))


def _record(state: State, choice: Choice) -> dict:
    """The attempt, its Feedback and what it cost, added to the run's history."""
    feedback = choice.attempt_feedback()
    attempts = (state.get("attempts") or 0) + 1
    generation = state.get("generation") or NO_USAGE
    record = Attempt(
        attempt=attempts,
        code=choice.code,
        candidates_tested=choice.tested,
        fresh_start=bool(state.get("fresh_start")),
        summary=summarize(feedback),
        passed_count=feedback["passed_count"],
        total=feedback["total"],
        reflection=None,
        tokens=generation["tokens"],
        prompt_tokens=generation["prompt_tokens"],
        completion_tokens=generation["completion_tokens"],
        seconds=round(generation["seconds"] + feedback["seconds"], 3),
    )
    if choice.edit is not None:
        record["changes"] = choice.edit.files
        record["changed"] = [ChangedDefinition(file=c.file, name=c.name, kind=c.kind) for c in choice.edit.changed]
    emit(AttemptTested(
        kind="tests_result", attempt=attempts, passed=feedback["passed"],
        passed_count=feedback["passed_count"], total=feedback["total"],
        summary=record["summary"], seconds=record["seconds"],
    ))
    return {
        "attempts": attempts,
        "feedback": feedback,
        "history": [*(state.get("history") or []), record],
        "candidates": [],
    }
