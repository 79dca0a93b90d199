"""Judging one candidate of the module form against the tests: without running it when it
can be (no code, a SyntaxError, harness tampering), else in a sandbox job, its report turned
into Feedback (with pyflakes notes when it failed; a pass with a stub or an undefined name is
no pass: evaluation/hollow.py).

The job runs the candidate in a process of its own. When the tests use the test process's
own tools, or something did not cross faithfully while they ran (evaluation/routes.py), the
tests are judged by a job with the candidate in the test process, as plain pytest runs them,
and the feedback says why (`in_test_process`)."""

from __future__ import annotations

from codeheal.evaluation.checks import check_names, marked_to_skip, parse_tests, watched_asserts
from codeheal.evaluation.feedback import (
    attempt_feedback,
    run_feedback,
    syntax_feedback,
    tamper_feedback,
)
from codeheal.evaluation.hollow import hollow_failures, hollow_feedback
from codeheal.evaluation.jobs import make_job
from codeheal.evaluation.pyflakes_notes import lint_notes
from codeheal.evaluation.routes import shared_reason
from codeheal.evaluation.verdict import parse_report, unfaithful
from codeheal.prompting.model_call import is_refused
from codeheal.sandboxes.base import RunResult, Sandbox
from codeheal.state import Feedback
from codeheal.steps import SandboxRun, Steps, arun_steps, run_steps

NO_CODE = "no code in reply: the reply had no Python code block"


def feedback_without_running(candidate: str, tamper_scan: bool = True) -> Feedback | None:
    """Feedback for a candidate that needs no sandbox to judge: none, a refused prompt's
    (model_call.refused_candidate), a SyntaxError, or (with `tamper_scan`) code that reaches
    into the test harness."""
    if not candidate.strip():
        return attempt_feedback(error=NO_CODE)
    if is_refused(candidate):  # the prompt was over the model's context: no reply was written
        return attempt_feedback(error=candidate)
    return syntax_feedback(candidate) or (tamper_feedback(candidate, lying_dunders=True) if tamper_scan else None)


def evaluation_steps(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True, entry_point: str | None = None, hollow_check: bool = True,
    python: str | None = None,
) -> Steps[Feedback]:
    """The feedback on one candidate: judged without running when it can be, else tested
    (`entry_point`: the function the tests call, make_job; `python`: the interpreter whose
    packages the tests import, None: the sandbox's own); a pass with a stub the tests call
    or an undefined name is a failure unless `hollow_check` is off (hollow.py)."""
    feedback = feedback_without_running(candidate, tamper_scan)
    if feedback is not None:
        return feedback
    shared = shared_reason(parse_tests(tests))
    result = yield SandboxRun(sandbox, make_job(candidate, tests, timeout_s, session, entry_point, python,
                                                apart=shared is None))
    seconds = 0.0
    if shared is None and not result.timed_out and (shared := unfaithful(parse_report(result.report))) is not None:
        seconds = result.seconds
        result = yield SandboxRun(sandbox, make_job(candidate, tests, timeout_s, session, entry_point, python,
                                                    apart=False))
    feedback = _from_run(result, tests)
    if shared is not None:
        feedback = {**feedback, "seconds": feedback["seconds"] + seconds, "in_test_process": shared}
    if not feedback["passed"]:
        return {**feedback, "lint": lint_notes(candidate)}
    hollow = hollow_failures(candidate, tests, entry_point) if hollow_check else []
    return hollow_feedback(feedback, hollow) if hollow else feedback


def evaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True, entry_point: str | None = None, hollow_check: bool = True,
) -> Feedback:
    """The feedback on one candidate (blocking). Raises SandboxError when the sandbox could
    not run it."""
    return run_steps(evaluation_steps(sandbox, candidate, tests, timeout_s, session, tamper_scan=tamper_scan,
                                      entry_point=entry_point, hollow_check=hollow_check))


async def aevaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True, entry_point: str | None = None, hollow_check: bool = True,
) -> Feedback:
    """evaluate_candidate without blocking the event loop."""
    return await arun_steps(evaluation_steps(sandbox, candidate, tests, timeout_s, session, tamper_scan=tamper_scan,
                                             entry_point=entry_point, hollow_check=hollow_check))


def _from_run(result: RunResult, tests: str) -> Feedback:
    module = parse_tests(tests)
    return run_feedback(result, check_names(module), watched=watched_asserts(module), tests=tests,
                        may_skip=marked_to_skip(module))
