"""Failures read from a test command's output, for commands codeheal cannot see inside
(`make test`, `python -m unittest`, `tox`, a script): Python tracebacks, unittest's
`FAIL: name` headers, pytest's `FAILED id - message` summary lines and the counts each
runner prints. Evidence for the prompt only: the command's exit code is the verdict
(`output_feedback`)."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from codeheal.evaluation.feedback import crash_description, feedback_of, strip_ansi, with_bounded_frames
from codeheal.evaluation.verdict import parse_report
from codeheal.sandboxes.base import RunResult
from codeheal.state import CheckFailure, Feedback, Frame

HEADER = "Traceback (most recent call last):"
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)\s*$')
EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
UNITTEST_TEST = re.compile(r"^(?:FAIL|ERROR): (?P<test>\S+)(?: \((?P<where>[^)]*)\))?")
PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) (?P<test>[^\s(]\S*?)(?: - (?P<detail>.*))?$")
DETAIL = re.compile(r"^(?P<type>[A-Z][\w.]*): ?(?P<message>.*)$")
"""pytest's summary detail: `KeyError: 'k'`, or for a failed assert only `assert 500 == 450`."""
UNITTEST_RAN = re.compile(r"^Ran (?P<total>\d+) tests? in ")
UNITTEST_FAILED = re.compile(r"^FAILED \((?P<counts>[^)]*)\)")
PYTEST_COUNTS = re.compile(r"^(?:=+ )?(?P<counts>\d+ (?:passed|failed|errors?)\b.*) in [\d.]+s")
MESSAGE_CHARS = 2000
SHORT_FRAME = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+): in (?P<function>\S+)\s*$")
"""A frame of pytest's short traceback style (`shop/limits.py:1: in <module>`), which its
collection errors carry as text."""
RAISED = re.compile(r"^E\s+(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
MAKE_STOP = re.compile(r"^g?make(?:\[\d+\])?: \*\*\* ")
"""make's line on stopping (`make: *** [Makefile:2: test] Error 127`), which names no cause."""


@dataclass(frozen=True)
class OutputReport:
    """What a test command's output says."""

    failures: list[CheckFailure]
    total: int | None
    """Tests run, when the runner printed it."""
    failed: int | None
    """Tests that failed or errored, when the runner printed it."""


def read_output(text: str, files: Collection[str]) -> OutputReport:
    """The failures and counts in `text`. Frames are kept for the project's `files` (paths
    relative to its root; the output names them by absolute paths in the sandbox)."""
    lines = text.splitlines()
    failures: list[CheckFailure] = []
    current_test: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if match := UNITTEST_TEST.match(line):
            current_test = match["test"]
        if line.strip() == HEADER:
            failure, i = _traceback(lines, i + 1, files, current_test)
            if failure is not None:
                failures.append(failure)
            current_test = None
            continue
        i += 1
    named = {f["test"] for f in failures}
    for line in lines:
        match = PYTEST_FAILED.match(line)
        if match and match["test"].split("::")[-1] not in named:
            detail = match["detail"] or ""
            typed = DETAIL.match(detail)
            exception = typed["type"] if typed else ("AssertionError" if detail.startswith("assert") else "Failed")
            failures.append(_failure(match["test"], exception, typed["message"] if typed else detail, []))
    return OutputReport(failures, *_counts(lines))


def _traceback(lines: list[str], i: int, files: Collection[str], test: str | None) -> tuple[CheckFailure | None, int]:
    """The traceback starting at line `i` (after its header), and the line after it. Of chained
    exceptions only the last is kept: it is the one the runner reported."""
    frames: list[Frame] = []
    while i < len(lines):
        line = lines[i]
        if match := FRAME.match(line):
            source = lines[i + 1].strip() if i + 1 < len(lines) and not FRAME.match(lines[i + 1]) else ""
            path = _project_path(match["file"], files)
            if path is not None:
                frames.append(Frame(file=path, line=int(match["line"]), function=match["function"], source=source))
            i += 2 if source else 1
            continue
        if line.startswith((" ", "\t")) or not line.strip():
            i += 1  # a source line, a caret line, pytest's ExceptionGroup indentation
            continue
        exception = EXCEPTION.match(line.strip())
        if exception is None:
            return None, i
        message = [exception["message"] or ""]
        i += 1
        while i < len(lines) and lines[i].strip() and not _ends_message(lines[i]):
            message.append(lines[i])
            i += 1
        name = test or (frames[-1]["function"] if frames else exception["type"])
        return _failure(name, exception["type"], "\n".join(message).strip(), frames), i
    return None, i


def _ends_message(line: str) -> bool:
    return line.strip() == HEADER or line.startswith(("=", "-" * 10, "FAIL: ", "ERROR: ", "Ran ", "During handling"))


def _failure(test: str, exception: str, message: str, frames: list[Frame]) -> CheckFailure:
    line = frames[-1]["line"] if frames else None
    return with_bounded_frames(CheckFailure(
        test=test, exception=exception.rsplit(".", 1)[-1], message=message[:MESSAGE_CHARS], line=line,
        frames=frames, expected=None, actual=None,
    ))


def _project_path(path: str, files: Collection[str]) -> str | None:
    """`path` as a project file: the longest project path it ends with."""
    relative = path.removeprefix("./")
    matches = [f for f in files if relative == f or relative.endswith("/" + f)]
    return max(matches, key=len) if matches else None


def _counts(lines: list[str]) -> tuple[int | None, int | None]:
    total = failed = None
    for line in lines:
        if match := UNITTEST_RAN.match(line):
            total, failed = int(match["total"]), 0
        elif (match := UNITTEST_FAILED.match(line)) and total is not None:
            failed = sum(int(n) for kind, n in re.findall(r"(\w+)=(\d+)", match["counts"]) if kind in ("failures", "errors"))
        elif match := PYTEST_COUNTS.match(line.strip()):
            counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (\w+)", match["counts"])}
            failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
            total = failed + counts.get("passed", 0)
    return total, failed


def output_feedback(result: RunResult, files: Collection[str]) -> Feedback:
    """Feedback on a test command codeheal cannot see inside: its exit code is the verdict (0
    passed; the supervisor's record of it where the job ran under one), and the failures are
    read from the tracebacks and runner summaries in its output, with frames in the project's
    `files`."""
    supervisor = parse_report(result.report).supervisor
    exit_code = supervisor["exit_code"] if supervisor else result.exit_code
    report = read_output(strip_ansi(result.stdout + "\n" + result.stderr), files)
    passed = exit_code == 0 and not result.timed_out
    failures = [] if passed else report.failures
    total = report.total if report.total else max(len(failures), 1)
    failed = 0 if passed else (report.failed if report.failed else max(len(failures), 1))
    error = None
    if result.timed_out:
        error = "timed out: the test command did not finish within the time limit"
    elif not passed and not failures and exit_code is not None and exit_code > 0:
        error = f"the test command failed with exit code {exit_code}" + (f": {cause}" if (cause := command_error(result.stderr)) else "")
    elif not passed and not failures:
        error = crash_description(result, exit_code)
    return feedback_of(result, passed, total, max(total - failed, 0), failures, error)


def command_error(stderr: str) -> str:
    """The last line of a failed command's stderr, with the lines before it while those are
    make's stop lines: make's own error (`make: python: No such file or directory`, or the
    shell's `python: not found`) says why, its `*** ... Error 127` only that it stopped."""
    lines = [line.strip() for line in strip_ansi(stderr).splitlines() if line.strip()]
    shown = lines[-1:]
    while len(shown) < len(lines) and MAKE_STOP.match(shown[0]):
        shown = lines[-len(shown) - 1:]
    return "; ".join(shown)


def with_text_frames(failures: list[CheckFailure], files: Collection[str]) -> list[CheckFailure]:
    """`failures`, each without frames given those its message holds as text in the project's
    `files` (pytest's collection error, `ImportError while importing test module ...`, carries its
    traceback so), and the exception it names: an import error in a project module then names
    the module and line, a repair target like any other failure."""
    found = []
    for failure in failures:
        if failure["frames"] or not failure["message"]:
            found.append(failure)
            continue
        lines = failure["message"].splitlines()
        frames: list[Frame] = []
        raised = None
        for i, line in enumerate(lines):
            if match := SHORT_FRAME.match(line) or FRAME.match(line):
                path = _project_path(match["file"], files)
                source = lines[i + 1].strip() if i + 1 < len(lines) else ""
                if path is not None:
                    frames.append(Frame(file=path, line=int(match["line"]), function=match["function"], source=source))
            elif match := RAISED.match(line):
                raised = match
        if not frames:
            found.append(failure)
            continue
        exception = raised["type"].rsplit(".", 1)[-1] if raised else failure["exception"]
        message = (raised["message"] or "") if raised else failure["message"]
        found.append(CheckFailure(**{**failure, "exception": exception, "message": message[:MESSAGE_CHARS],
                                     "frames": frames, "line": frames[-1]["line"]}))
    return found
