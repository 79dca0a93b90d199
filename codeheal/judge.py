"""The module form's judgement as a library call: one piece of code against tests, in the sandbox
a Context names, judged exactly as the loop judges a candidate (no code, a SyntaxError and
harness tampering without running it; else the tests run with codeheal's report plugin and the
host decides from the evidence); and the results of calls of it, for a judgement the caller
makes on the host (the benchmarks' hidden check). No model is called."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codeheal.context import Context
from codeheal.evaluation.checks import parse_tests
from codeheal.evaluation.feedback import run_feedback
from codeheal.evaluation.jobs import make_job
from codeheal.evaluation.verdict import parse_report, reported_results
from codeheal.forms.module.candidate import aevaluate_candidate, evaluate_candidate
from codeheal.rules import time_limit
from codeheal.sandboxes import sandbox_for
from codeheal.state import Feedback

CALL_TEST = "test_call_{}"


@dataclass(frozen=True)
class CallResults:
    """What each call of `acall_results` returned (its plain value, or why there is none: what it
    raised, or what it returned instead of plain data), or why the run tells nothing (`error`)."""

    results: list[tuple[Any, str | None]]
    error: str | None = None


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


def call_tests(entry_point: str, calls: Sequence[str]) -> str:
    """Tests of one call of `entry_point` each, with the given arguments (Python source,
    `*(1, 2), **{}`) and nothing else: no expected value for the candidate to read."""
    tests = [f"def {CALL_TEST.format(i)}():\n    assert _called({call}) == None\n" for i, call in enumerate(calls)]
    return f'inf, nan = float("inf"), float("nan")\n_called = {entry_point}\n\n\n' + "\n\n".join(tests)


async def acall_results(code: str, calls: Sequence[str], *, entry_point: str, context: Context | None = None) -> CallResults:
    """`code`'s `entry_point` called on each of `calls` (argument source, as call_tests takes it)
    in the sandbox, its results read back as the report plugin's plain-data evidence, for a
    judgement made by the caller on the host: only inputs go into the sandbox. A run that timed
    out, or whose report is not the plugin's, gives `error`."""
    settings = context or Context()
    job = make_job(code, call_tests(entry_point, calls), time_limit(settings), entry_point=entry_point)
    result = await sandbox_for(settings).arun(job)
    report = parse_report(result.report)
    if result.timed_out:
        return CallResults([], error="timeout")
    if report.supervisor is None or report.stray_lines or report.misshapen or report.supervisor["forged_lines"]:
        return CallResults([], error="the run's report is not codeheal's report plugin's")
    names = [CALL_TEST.format(i) for i in range(len(calls))]
    returned = reported_results(report.events)
    if all(name in returned for name in names):
        return CallResults([returned[name] for name in names])
    feedback = run_feedback(result, names)  # why a call told nothing: an exit at import, a crash
    why = feedback["error"] or next((f"{f['exception']}: {f['message']}" for f in feedback["failures"]), None)
    return CallResults([returned.get(name, (None, (why or "the call did not return").splitlines()[0])) for name in names])
