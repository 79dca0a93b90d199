"""The evaluator: runs the candidate against the tests in a sandbox and reports a Feedback."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from langchain_core.runnables import Runnable, RunnableLambda

from codeheal.context import Context, current_context
from codeheal.nodes.checks import TEST_MODULE, build_test_module, parse_tests, check_names
from codeheal.nodes.feedback import attempt_feedback, run_feedback, summarize, syntax_feedback, tamper_feedback
from codeheal.progress import AttemptTested, RunStatus, emit
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Job, RunResult, Sandbox, SessionSandbox
from codeheal.state import Attempt, Feedback, State, Status

PLUGIN_MODULE = "codeheal_report"
PLUGIN_SOURCE = (Path(__file__).with_name("pytest_plugin.py")).read_text(encoding="utf-8")
PYTEST_ARGS = (
    "-m", "pytest", "-p", PLUGIN_MODULE, "-p", "no:cacheprovider", "-p", "no:terminal", "-s",
    TEST_MODULE,
)
NO_CODE = "no code in reply: the reply had no Python code block"


def make_job(candidate: str, tests: str, timeout_s: float, session: str | None = None) -> Job:
    """The sandbox job that runs the tests against one candidate."""
    return Job(
        files={
            "solution.py": candidate,
            TEST_MODULE: build_test_module(tests),
            f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE,
            "pytest.ini": "[pytest]\n",
        },
        python_args=PYTEST_ARGS,
        timeout_s=timeout_s,
        report=True,
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        session=session,
    )


def feedback_without_running(candidate: str, tamper_scan: bool = True) -> Feedback | None:
    """Feedback for a candidate that needs no sandbox to judge: none, a SyntaxError, or
    (with `tamper_scan`) code that reaches into the test harness."""
    if not candidate.strip():
        return attempt_feedback(error=NO_CODE)
    return syntax_feedback(candidate) or (tamper_feedback(candidate) if tamper_scan else None)


def evaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Feedback:
    """The feedback on one candidate: judged without running when it can be, else tested.
    Raises SandboxError when the sandbox could not run it."""
    return feedback_without_running(candidate, tamper_scan) or _from_run(
        sandbox.run(make_job(candidate, tests, timeout_s, session)), tests
    )


async def aevaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Feedback:
    """evaluate_candidate without blocking the event loop."""
    return feedback_without_running(candidate, tamper_scan) or _from_run(
        await sandbox.arun(make_job(candidate, tests, timeout_s, session)), tests
    )


def make_evaluator(sandbox: Sandbox | None = None) -> Runnable:
    """The evaluator node; `sandbox` overrides the one named in the run's Context."""

    def evaluator(state: State) -> dict:
        context = current_context()
        chosen, session = sandbox or sandbox_for(context), _session(state)
        choice = Choice()
        for candidate in candidates_to_test(state):
            feedback = evaluate_candidate(
                chosen, candidate, state["tests"], context.timeout_s, session, tamper_scan=context.tamper_scan
            )
            if choice.add(candidate, feedback):
                break
        update = _update(state, context, choice)
        if _session_over(update, session) and isinstance(chosen, SessionSandbox):
            chosen.close_session(session)
        return update

    async def aevaluator(state: State) -> dict:
        context = current_context()
        chosen, session = sandbox or sandbox_for(context), _session(state)
        choice = Choice()
        for candidate in candidates_to_test(state):
            feedback = await aevaluate_candidate(
                chosen, candidate, state["tests"], context.timeout_s, session, tamper_scan=context.tamper_scan
            )
            if choice.add(candidate, feedback):
                break
        update = _update(state, context, choice)
        if _session_over(update, session) and isinstance(chosen, SessionSandbox):
            await chosen.aclose_session(session)
        return update

    return RunnableLambda(evaluator, afunc=aevaluator, name="evaluator")


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

    def add(self, code: str, feedback: Feedback) -> bool:
        """Take one tested candidate into account; True once one has passed (stop testing)."""
        self.tested += 1
        self.sandbox_seconds += feedback["seconds"]
        if self.feedback is None or feedback["passed_count"] > self.feedback["passed_count"] or (
            feedback["passed"] and not self.feedback["passed"]
        ):
            self.code, self.feedback = code, feedback
        return feedback["passed"]

    def attempt_feedback(self) -> Feedback:
        """The chosen candidate's feedback, timed as the whole attempt's sandbox work."""
        assert self.feedback is not None, "no candidate was tested"
        return {**self.feedback, "seconds": round(self.sandbox_seconds, 3)}


def _session(state: State) -> str:
    """The key under which this run's attempts share a sandbox (E2B: one remote sandbox)."""
    return state.get("sandbox_session") or uuid.uuid4().hex


def _session_over(update: dict, session: str) -> bool:
    """Record the session in the update while the run keeps testing; once it stops (passed,
    failed, or paused for review) the session ends, and attempts a reviewer grants later
    start a new one."""
    running = update["status"] == "running"
    update["sandbox_session"] = session if running else None
    return not running


def _from_run(result: RunResult, tests: str) -> Feedback:
    return run_feedback(result, check_names(parse_tests(tests)))


def _update(state: State, context: Context, choice: Choice) -> dict:
    feedback = choice.attempt_feedback()
    attempts = (state.get("attempts") or 0) + 1
    generation = state.get("generation") or {"tokens": 0, "seconds": 0.0}
    record = Attempt(
        attempt=attempts,
        code=choice.code,
        candidates_tested=choice.tested,
        summary=summarize(feedback),
        passed_count=feedback["passed_count"],
        total=feedback["total"],
        reflection=None,
        tokens=generation["tokens"],
        seconds=round(generation["seconds"] + feedback["seconds"], 3),
    )
    history = [*(state.get("history") or []), record]
    status: Status = "passed" if feedback["passed"] else (
        "failed" if attempts >= attempt_limit(state, context) else "running"
    )
    update = {
        "attempts": attempts,
        "feedback": feedback,
        "history": history,
        "status": status,
        "code": best_attempt(history)["code"],
        "candidates": [],
    }
    emit(AttemptTested(
        kind="tests_result", attempt=attempts, passed=feedback["passed"],
        passed_count=feedback["passed_count"], total=feedback["total"],
        summary=record["summary"], seconds=record["seconds"],
    ))
    # A run that will pause for human review is not over yet: the review node ends it.
    if status == "passed" or (status == "failed" and not context.review_on_exhaustion):
        update["entry_point"] = None  # input of this run only: a thread's next run brings its own
        emit(RunStatus(kind="status", status=status, attempts=attempts))
    return update


def attempt_limit(state: State, context: Context) -> int:
    """How many attempts this run may use: the Context's cap unless a reviewer granted more."""
    return state.get("attempt_limit") or context.max_attempts


def best_attempt(history: list[Attempt]) -> Attempt:
    """The attempt that passed the most checks; the latest one among equals, code
    before no code."""
    return max(reversed(history), key=lambda a: (a["passed_count"], bool(a["code"].strip())))
