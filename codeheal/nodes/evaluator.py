"""The evaluator: runs the candidates against the tests in a sandbox and records the attempt
with its Feedback. What happens next is the loop policy's decision (graph/policy.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codeheal.context import current_context
from codeheal.nodes.checks import TEST_MODULE, build_test_module, check_names, parse_tests
from codeheal.nodes.feedback import attempt_feedback, run_feedback, summarize, syntax_feedback, tamper_feedback
from codeheal.nodes.lint import lint_notes
from codeheal.nodes.model_call import NO_USAGE
from codeheal.nodes.steps import SandboxRun, Steps, arun_steps, run_steps
from codeheal.progress import AttemptTested, emit
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Job, RunResult, Sandbox
from codeheal.state import Attempt, Feedback, State

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
        for candidate in candidates_to_test(state):
            feedback = yield from evaluation_steps(
                chosen, candidate, state["tests"], context.timeout_s, session, tamper_scan=context.tamper_scan
            )
            if choice.add(candidate, feedback):
                break
        return {**_record(state, choice), "sandbox_session": session}

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
