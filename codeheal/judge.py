"""The module form's judgement as a library call: one piece of code against tests, in the sandbox
a Context names, judged exactly as the loop judges a candidate (no code, a SyntaxError and
harness tampering without running it; else the tests run with codeheal's report plugin and the
host decides from the evidence). No model is called."""

from __future__ import annotations

from codeheal.context import Context
from codeheal.evaluation.checks import parse_tests
from codeheal.forms.module.candidate import aevaluate_candidate, evaluate_candidate
from codeheal.policy import time_limit
from codeheal.sandboxes import sandbox_for
from codeheal.state import Feedback


def evaluate(code: str, tests: str, *, context: Context | None = None, entry_point: str | None = None,
             hollow_check: bool = True) -> Feedback:
    """The Feedback on `code` (saved as solution.py) under `tests` (pytest `test_*` functions
    or plain asserts, the candidate's names in scope but those of builtins, save `entry_point`,
    the function the tests call), as the loop's evaluator gives it.
    `context` supplies the sandbox, its time limit and the tamper scan (default: Context()).
    `hollow_check` off: the tests alone decide, even for a pass with a stub the tests call or
    an undefined name (evaluation/hollow.py), as a benchmark's own harness scores.
    Raises InputError for tests that do not parse, SandboxError when the sandbox cannot run."""
    settings = context or Context()
    parse_tests(tests)
    return evaluate_candidate(sandbox_for(settings), code, tests, time_limit(settings),
                              tamper_scan=settings.tamper_scan, entry_point=entry_point, hollow_check=hollow_check)


async def aevaluate(code: str, tests: str, *, context: Context | None = None,
                    entry_point: str | None = None, hollow_check: bool = True) -> Feedback:
    """`evaluate` without blocking the event loop."""
    settings = context or Context()
    parse_tests(tests)
    return await aevaluate_candidate(sandbox_for(settings), code, tests, time_limit(settings),
                                     tamper_scan=settings.tamper_scan, entry_point=entry_point,
                                     hollow_check=hollow_check)
