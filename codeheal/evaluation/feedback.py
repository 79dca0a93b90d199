"""Building the structured Feedback: from a syntax check, the tamper scan, or the plugin's report."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Sequence

from codeheal.evaluation import tamper_scan
from codeheal.evaluation.checks import PRELUDE_LINES, TEST_MODULE, WatchedAssert, statement_at
from codeheal.evaluation.verdict import Report, TestEvidence, weigh
from codeheal.sandboxes.base import RunResult
from codeheal.state import CheckFailure, Feedback, Frame

TAIL_CHARS = 2000
FRAMES_HEAD = 5
FRAMES_TAIL = 10
"""A failure keeps at most this many of its outermost and innermost frames: a recursion a
thousand calls deep would otherwise put a thousand frames in the state and the prompt."""
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
WRAPPED_ASSERT = re.compile(r"^def test_line_\d+\(\): ")
"""The wrapper build_test_module puts before a plain assert, not part of the user's line."""


def attempt_feedback(
    *, error: str, isolation: str = "none", failures: list[CheckFailure] | None = None
) -> Feedback:
    """Feedback for an attempt that failed before any test could run."""
    return Feedback(
        passed=False,
        total=0,
        passed_count=0,
        failures=failures or [],
        error=error,
        stdout="",
        stderr="",
        output_truncated=False,
        timed_out=False,
        seconds=0.0,
        isolation=isolation,
    )


def syntax_feedback(code: str) -> Feedback | None:
    """A SyntaxError in the candidate as feedback with line and caret, or None if it compiles."""
    try:
        compile(code, "solution.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = (exc.text or "").rstrip("\n")
        caret = " " * max((exc.offset or 1) - 1, 0) + "^"
        message = f"{type(exc).__name__}: {exc.msg}"
        frame = Frame(file="solution.py", line=exc.lineno or 0, function="<module>", source=line.strip())
        failure = CheckFailure(
            test="<compile>", exception=type(exc).__name__, message=exc.msg,
            line=exc.lineno, frames=[frame], expected=None, actual=None,
        )
        return attempt_feedback(
            error=f"{message} (solution.py line {exc.lineno})\n    {line}\n    {caret}",
            failures=[failure],
        )
    return None


def tamper_feedback(code: str, *, lying_dunders: bool = False) -> Feedback | None:
    """The tamper scan's findings in the candidate as feedback, or None if it found none.
    `lying_dunders`: comparison methods that ignore their argument are refused too (for code
    whose values tests compare with the objects' own methods: a project's own asserts)."""
    findings = tamper_scan.scan(code) + (tamper_scan.lying_dunders(code) if lying_dunders else [])
    if not findings:
        return None
    failures = [
        CheckFailure(test="<tamper scan>", exception="HarnessTampering", message=f.what, line=f.line,
                     frames=[], expected=None, actual=None)
        for f in findings
    ]
    return attempt_feedback(error=tamper_scan.describe(findings), failures=failures)


def run_feedback(
    result: RunResult, expected: Collection[str] | None, *,
    watched: Sequence[WatchedAssert] = (), must_run: Collection[str] | None = None, tests: str | None = None,
    may_skip: Collection[str] = (),
) -> Feedback:
    """Feedback from a sandbox run and its report (verdict.py: the supervisor's record and the
    report plugin's evidence). The report is evidence, not the verdict: a pass needs a report
    consistent with what the host knows (one collection record, covering each of the
    `expected` test names parsed from the tests and no other, one finish event agreeing with
    the results and with the test process's exit code), every collected test id run to its
    end and passed (no skip, no xfail, no failed subtest), and, in the module form, the
    `watched` asserts' values holding when the host checks them. Counts are per test id
    (subtests count under their test). `expected`: the check names the host parsed from the
    user's tests and generated the test module from (frames in that module are shown as
    lines of the user's tests); None when the tests are a project's own, named only by the
    run, whose frames are in its own terms; `must_run`: the node ids the project as it is
    ran, each of which must run and pass (a test the project skips of its own accord is not
    counted); `tests`: the module form's tests, whose statements frames in the generated
    module show; `may_skip`: the module form's tests whose own marks may skip them (not
    counted when they do, as in plain pytest).

    A run whose report never started (the report plugin was stopped before pytest's session
    began: a candidate that interferes with the report, or a project that blocks the plugin)
    is a failed attempt that says so; the sandbox's own faults are raised by the sandbox."""
    weighed = weigh(result.report, expected, watched, must_run, result.timed_out, may_skip)
    report, evidence, hung, overrun = weighed.report, weighed.evidence, weighed.hung, weighed.overrun
    events = report.events
    if overrun is not None:  # a test ran past its own limit and stopped the run (clock.py): a timeout
        result = dataclasses.replace(result, timed_out=True)
    exit_code = report.supervisor["exit_code"] if report.supervisor else result.exit_code
    results = [e for e in events if e.get("event") in ("result", "subtest")]
    collect_errors = [e for e in events if e.get("event") == "collect_error"]
    finishes = [e for e in events if e.get("event") == "finish"]
    failures = [_failure(e, expected is not None, tests) for e in collect_errors + results if e.get("outcome", "failed") == "failed"]
    host_failures, total, passed_count = weighed.host_failures, weighed.total, weighed.passed_count
    collected = evidence.collected or ()

    error = None
    if report.misshapen:
        error = (f"{len(report.misshapen)} record(s) on the report channel do not match codeheal's evidence schema "
                 f"(first: {report.misshapen[0]}), so the report cannot be believed and the run is not a pass")
    elif not result.timed_out and not any(e.get("event") == "start" for e in events):
        error = _never_started(result, exit_code)
    elif result.timed_out:
        error = "timed out: the run did not finish within the time limit" + (
            f" (still running {hung})" if hung else ""
        ) if overrun is None else f"timed out: {hung or overrun['test']} ran past its own limit of {overrun['limit']:g} s"
        if hung:
            failures.append(CheckFailure(
                test=hung, exception="Timeout", message="did not finish in time" if overrun is None else
                f"did not finish within its own limit of {overrun['limit']:g} s",
                line=None, frames=[], expected=None, actual=None,
            ))
    elif collect_errors:
        error = _load_error(failures[0])
    elif result.exit_code is None:  # killed by the host (an output flood)
        error = crash_description(result, None)
    elif (untrusted := _untrusted(report)) is not None:
        error = untrusted
    elif not finishes:
        error = crash_description(result, exit_code)
    elif not results and not collected:
        error = "no tests were collected"
    else:
        error = _inconsistency(exit_code, events, evidence, finishes, failures, weighed.not_in_tests)

    feedback = feedback_of(
        result, error is None and not failures and not host_failures and total > 0 and passed_count == total,
        total, passed_count, failures + host_failures, error,
    )
    feedback["tests_ran"] = sorted({e["test"] for e in results if e.get("when") == "call" and e["outcome"] != "skipped"})
    feedback["tests_failed"] = sorted(t for t, state in evidence.outcome.items() if state == "failed")
    return feedback


def _never_started(result: RunResult, exit_code: int | None) -> str:
    """Why a run without a report start fails: the report plugin never began its session."""
    return (f"the test run's report never started (exit code {exit_code}): something stopped codeheal's report "
            "plugin before pytest's session began (code run at start-up, or a configuration that blocks the "
            f"plugin), so the run is not a pass: {_tail(result.stderr).strip()[-300:] or 'no output'}")


def feedback_of(
    result: RunResult, passed: bool, total: int, passed_count: int, failures: list[CheckFailure], error: str | None
) -> Feedback:
    """The Feedback of a run: the verdict and counts given, the run's output and timing."""
    return Feedback(
        passed=passed,
        total=total,
        passed_count=passed_count,
        failures=failures,
        error=error,
        stdout=_tail(result.stdout),
        stderr=_tail(result.stderr),
        output_truncated=result.output_truncated,
        timed_out=result.timed_out,
        seconds=result.seconds,
        isolation=result.isolation,
    )


def _untrusted(report: Report) -> str | None:
    """Why the report cannot be believed at all, from the supervisor's own record."""
    supervisor = report.supervisor
    if report.supervisor_records > 1:
        return ("more than one supervisor record on the report channel: something besides codeheal's supervisor "
                "wrote to it, so the run is not a pass")
    if supervisor is None:
        return "the sandbox's supervisor ended without its record (killed), so the run is not a pass"
    if supervisor.get("forged_lines") or report.stray_lines:
        count = (supervisor.get("forged_lines") or 0) + report.stray_lines
        return (f"{count} line(s) on the report pipe were not written by codeheal's report plugin: "
                "code under test wrote to the harness's channel, so the run is not a pass")
    if supervisor.get("evidence_cut"):
        return "the run's report was too large to check, so the run is not a pass"
    return None


def _inconsistency(
    exit_code: int | None, events: list[dict], evidence: TestEvidence, finishes: list[dict],
    failures: list[CheckFailure], not_in_tests: list[str],
) -> str | None:
    """What in a finished run's report disagrees with what the host knows; None if nothing."""
    problems = []
    if evidence.collected is None:
        problems.append("no single collection record")
    collected = set(evidence.collected or ())
    if not_in_tests:
        problems.append(f"results for tests that are not in the tests: {', '.join(not_in_tests[:5])}")
    if uncollected := sorted(t for t in evidence.outcome if t not in collected):
        problems.append(f"results for tests that were not collected: {', '.join(uncollected[:5])}")
    if len(finishes) != 1 or sum(1 for e in events if e.get("event") == "start") != 1:
        problems.append("more than one start or finish event")
    if events and events[-1].get("event") != "finish":
        problems.append("evidence after the finish event")
    status = finishes[-1].get("exitstatus")
    if (status == 0) == bool(failures):
        problems.append(f"pytest's exit status {status} disagrees with {len(failures)} failure(s)")
    if status != exit_code:
        problems.append(f"pytest finished with status {status} but the test process exited with {exit_code}")
    if not problems:
        return None
    return "the run's report is inconsistent, so it is not a pass: " + "; ".join(problems)


def _load_error(failure: CheckFailure) -> str:
    """Why the tests could not be loaded: most often the candidate crashed on import."""
    cause = f"{failure['exception']}: {failure['message']}"
    if failure["line"] is not None:
        return f"solution.py crashed on import at line {failure['line']}: {cause}"
    return f"the tests could not be loaded: {cause}"


def summarize(feedback: Feedback) -> str:
    """One line: the outcome of an attempt, for history and progress output."""
    if feedback["passed"]:
        return f"passed {feedback['passed_count']}/{feedback['total']}"
    head = f"failed {feedback['passed_count']}/{feedback['total']} passed"
    if feedback["error"]:
        return f"{head}; {feedback['error'].splitlines()[0]}"
    first = feedback["failures"][0] if feedback["failures"] else None
    if first:
        return f"{head}; {first['test']}: {first['exception']}: {first['message'].splitlines()[0] if first['message'] else ''}"
    return head


def strip_ansi(text: str) -> str:
    return ANSI_ESCAPE.sub("", text)


def _failure(event: dict, generated: bool, tests: str | None) -> CheckFailure:
    """`generated`: the run's test module is the one the host generated from the user's tests."""
    frames = [_in_user_terms(Frame(**f), tests) if generated else Frame(**f) for f in event.get("frames", [])]
    solution_lines = [f["line"] for f in frames if f["file"] == "solution.py"]
    test = event.get("name") or event.get("test", "?")
    if event.get("subtest"):
        test = f"{test} {event['subtest']}"
    if event.get("when") in ("setup", "teardown"):
        test = f"{test} ({event['when']})"
    failure = with_bounded_frames(CheckFailure(
        test=test,
        exception=event.get("exception", "Error"),
        message=strip_ansi(event.get("message", "")),
        line=solution_lines[-1] if solution_lines else None,
        frames=frames,
        expected=event.get("expected"),
        actual=event.get("actual"),
    ))
    if isinstance(event.get("inputs"), dict):
        failure["inputs"] = {str(k): str(v) for k, v in event["inputs"].items()}
    return failure


def with_bounded_frames(failure: CheckFailure) -> CheckFailure:
    """`failure` with at most FRAMES_HEAD + FRAMES_TAIL frames: the outermost and the innermost,
    and how many were left out between them (`frames_left_out`)."""
    frames = failure["frames"]
    left_out = len(frames) - FRAMES_HEAD - FRAMES_TAIL
    if left_out <= 0:
        return failure
    return CheckFailure(**{**failure, "frames": frames[:FRAMES_HEAD] + frames[-FRAMES_TAIL:],
                           "frames_left_out": left_out})


def _in_user_terms(frame: Frame, tests: str | None) -> Frame:
    """A frame in the generated test module, as a line of the user's tests.py (its statement
    as the user wrote it, without the recorders, when the tests are at hand)."""
    if frame["file"] != TEST_MODULE:
        return frame
    line = max(frame["line"] - PRELUDE_LINES, 1)
    written = statement_at(tests, line) if tests is not None else None
    source = WRAPPED_ASSERT.sub("", frame["source"]) if written is None else written
    return Frame(**{**frame, "file": "tests.py", "line": line, "source": source})


def crash_description(result: RunResult, exit_code: int | None) -> str:
    """Why a test process ended before its run finished: killed, by a signal, or an early exit."""
    if exit_code is None:
        return "the process was killed" + (" after flooding its output" if result.output_truncated else "")
    if exit_code < 0:
        return f"the process was killed by signal {-exit_code}"
    last = strip_ansi(result.stderr).strip().splitlines()
    detail = f": {last[-1]}" if last else ""
    return f"the test process ended early with exit code {exit_code}{detail}"


def _tail(text: str) -> str:
    text = strip_ansi(text)
    return text if len(text) <= TAIL_CHARS else "...[cut]...\n" + text[-TAIL_CHARS:]
