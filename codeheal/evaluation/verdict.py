"""What the host checks in a run's evidence before it calls the run a pass.

The report channel is written by codeheal's supervisor alone (supervisor.py): its own record
(how the test process ended, how many lines the report plugin did not write) and the plugin's
authenticated evidence. From them the host requires that every expected test ran and passed
(a skip, an xfail or a missing result is not a pass), and, in the module form, compares the
values each watched assert saw itself where both sides are plain data (a side that is an
object is compared by its own methods, as plain pytest does), and requires each assert a
passing test always runs to have reported. `unfaithful` reads which test the module form's
boundary could not carry faithfully (forms/module/candidate.py judges it again).
Evidence is per test id: the one collection record names every id, and a passing id needs
its call passed, no failed phase or subtest, and (a test function) its body ended."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from codeheal.evaluation.checks import COMPARISONS, NO_LITERAL, WatchedAssert
from codeheal.evaluation.evidence import checked_evidence, checked_supervisor
from codeheal.evaluation.plain_data import unplain
from codeheal.state import CheckFailure


NO_RESULT = "did not run: no result for it (the run ended before it, or it was not collected)"
UNFINISHED = ("its body never ran to its end, yet it was reported passed (a patched runner, an exit or a jump "
              "out of it): a test that does not run is not a pass")


@dataclass(frozen=True)
class Report:
    """A run's report channel, parsed."""

    events: list[dict]
    """The report plugin's evidence, in order."""
    supervisor: dict | None
    """The supervisor's own record; None when it never wrote one (killed, or timed out)."""
    stray_lines: int = 0
    """Lines that are neither (a sandbox that let something else write to the channel)."""
    supervisor_records: int = 0
    """How many supervisor records came: exactly one, the last line, is the supervisor's."""
    misshapen: tuple[str, ...] = ()
    """Why each record that does not match the evidence schema (evidence.py) is not evidence;
    such records are left out of `events` and `supervisor`, and make the report untrusted."""


@dataclass
class _Plain:
    """A decoded value, or why there is none."""

    value: Any = None
    object_type: str | None = None
    """Not plain data: the name of its type (the test's own comparison decides, as in plain pytest)."""
    too_big: bool = False


@dataclass
class _Tally:
    values: dict[tuple[str, int], list[list[_Plain]]] = field(default_factory=lambda: defaultdict(lambda: [[], []]))
    compared: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    """(count, failed) per (test, assert): the test process's check of every run of it."""


@dataclass(frozen=True)
class TestEvidence:
    """What the evidence says of each test id of a run."""

    __test__ = False  # not a pytest test class, whatever its name

    collected: tuple[str, ...] | None
    """The ids pytest collected (its one collection record); None without exactly one."""
    watched: frozenset[str]
    """The collected ids whose body the report plugin watched to its end."""
    outcome: dict[str, str]
    """Per id that has a result: "passed", "failed", "skipped", "xfail" or "unfinished"."""
    reason: dict[str, str]
    """Why an id was skipped or marked xfail."""


@dataclass(frozen=True)
class Weighed:
    """A run's report weighed per test id against what the host knows, as plain data: what
    feedback.run_feedback builds the run's Feedback from (it decides nothing per test id)."""

    report: Report
    evidence: TestEvidence
    overrun: dict | None
    """The event of a test that ran past its own limit and stopped the run (clock.py)."""
    timed_out: bool
    """The run timed out: the sandbox's limit, or a test's own (`overrun`)."""
    hung: str | None
    """A timed-out run: the short name of the test that began and did not end."""
    host_failures: list[CheckFailure]
    """What the host finds that the report does not fail: each required id that did not run
    and pass (but the hung one), each expected name not collected, each collected test whose
    body was not watched to its end, and each passed test whose watched values disagree."""
    passed_count: int
    total: int
    not_in_tests: list[str]
    """The module form: collected tests by names that are not in the tests."""


def parse_report(text: str) -> Report:
    """The evidence and the supervisor's record, which must be the last line and the only one;
    each checked against its schema, so what the host reads has the shape it expects."""
    events: list[dict] = []
    stray = 0
    supervisor: dict | None = None
    records = 0
    misshapen: list[str] = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            stray += 1  # or a line cut by a kill mid-write
            continue
        if isinstance(record, dict) and "supervisor" in record:
            records += 1
            checked = checked_supervisor(record["supervisor"])
            if isinstance(checked, str):
                misshapen.append(f"the supervisor's record: {checked}")
                checked = None
            supervisor = checked if records == 1 else None
        elif records == 0 and isinstance(record, dict) and "evidence" in record:
            checked = checked_evidence(record["evidence"])
            if isinstance(checked, str):
                misshapen.append(checked)
            else:
                events.append(checked)
        else:
            stray += 1
    return Report(events, supervisor, stray, records, tuple(misshapen))


def test_path(nodeid: str) -> str:
    """`test_solution.py::TestX::test_y[1]` -> `TestX::test_y`: a test as the tests name it."""
    return "::".join(nodeid.split("::")[1:]).split("[")[0]


def top_name(nodeid: str) -> str:
    """`test_solution.py::TestX::test_y[1]` -> `TestX`: the name a test has in the tests."""
    parts = nodeid.split("::")
    return (parts[1] if len(parts) > 1 else parts[0]).split("[")[0]


def short_name(nodeid: str) -> str:
    """`tests/test_a.py::TestX::test_y[1]` -> `test_y[1]`: how a failure names a test id."""
    return nodeid.split("::")[-1]


def test_evidence(events: list[dict]) -> TestEvidence:
    """Each test id's outcome from its results, its subtests and whether its body ended: a
    test passes when its call passed, no phase or subtest of it failed, and (a watched
    body) it ran to its end."""
    collections = [e for e in events if e.get("event") == "collected" and isinstance(e.get("tests"), list)]
    collected = watched = None
    if len(collections) == 1:
        collected = tuple(t for t in collections[0]["tests"] if isinstance(t, str))
        watched = frozenset(t for t in collections[0].get("watched") or [] if isinstance(t, str))
    ended = {e.get("test") for e in events if e.get("event") == "ended"}
    outcome: dict[str, str] = {}
    reason: dict[str, str] = {}
    for event in events:
        test = event.get("test")
        if event.get("event") not in ("result", "subtest") or not isinstance(test, str):
            continue
        if event["event"] == "subtest" or event.get("outcome") == "failed" or (
                (event.get("subtests") or {}).get("failed")):
            outcome[test] = "failed"
        elif outcome.get(test) == "failed":
            continue
        elif event.get("xfail") or event.get("outcome") == "skipped":
            outcome[test] = "xfail" if event.get("xfail") else "skipped"
            reason[test] = str(event.get("reason") or "")
        elif event.get("when") == "call" and outcome.get(test) not in ("skipped", "xfail"):
            outcome[test] = "passed" if test in ended or test not in (watched or ()) else "unfinished"
    return TestEvidence(collected, watched or frozenset(), outcome, reason)


def weigh(
    text: str, expected: Collection[str] | None, watched: Sequence[WatchedAssert], must_run: Collection[str] | None,
    timed_out: bool, may_skip: Collection[str] = (),
) -> Weighed:
    """The report `text` of a run weighed per test id (see run_feedback for `expected`,
    `watched`, `must_run` and `may_skip`; `timed_out`: the sandbox stopped the run at its
    limit). Counts are per test id (subtests count under their test)."""
    report = parse_report(text)
    events = report.events
    overrun = next((e for e in events if e.get("event") == "overrun"), None)
    timed_out = timed_out or overrun is not None
    evidence = test_evidence(events)
    hung = _unfinished_test(events) if timed_out else None
    collected = evidence.collected or ()
    required = _required(evidence, expected, must_run, may_skip)
    unrun = [f for f in unrun_failures(evidence, required) if f["test"] != hung]  # named as the one that hung
    not_in_tests: list[str] = []
    if expected is not None:
        unrun += [_failure(name, "NotCollected", "was not collected: pytest found no test by this name, so it "
                           "cannot pass") for name in sorted(set(expected) - {top_name(t) for t in collected})]
        unrun += [_failure(short_name(t), "NotRun", "the test's body was not watched to its end")
                  for t in collected if t not in evidence.watched]
        not_in_tests = sorted({top_name(t) for t in collected} - set(expected))
    wrong_values = _wrong_values(events, evidence, watched)
    counted = _counted(evidence, required)
    passed_count = sum(1 for t in counted if evidence.outcome.get(t) == "passed" and t not in wrong_values)
    total = len(counted) + sum(1 for f in unrun if f["exception"] == "NotCollected")
    return Weighed(report, evidence, overrun, timed_out, hung, unrun + list(wrong_values.values()),
                   passed_count, total, not_in_tests)


def _required(evidence: TestEvidence, expected: Collection[str] | None, must_run: Collection[str] | None,
              may_skip: Collection[str] = ()) -> set[str]:
    """The test ids that must run and pass: in the module form every collected one but those
    its own marks skipped or marked xfail (`may_skip`, checks.marked_to_skip); in the project
    form, those the project as it is ran, and every collected one that has no result at all (a
    run cut short), and every one that started and never ended."""
    collected = set(evidence.collected or ())
    if expected is not None:
        return {t for t in collected if evidence.outcome.get(t) not in ("skipped", "xfail")
                or (test_path(t) not in may_skip and top_name(t) not in may_skip)}
    required = {t for t in collected if evidence.outcome.get(t) in (None, "unfinished")}
    return required | set(must_run or ())


def _counted(evidence: TestEvidence, required: set[str]) -> set[str]:
    """The test ids a run's counts are over: the collected ones and the required ones, less
    those skipped of the project's own accord (not required)."""
    ids = set(evidence.collected or ()) | set(evidence.outcome) | required
    return {t for t in ids if t in required or evidence.outcome.get(t) not in ("skipped", "xfail")}


def _unfinished_test(events: list[dict]) -> str | None:
    begun = [e["test"] for e in events if e.get("event") == "begin"]
    ended = {e["test"] for e in events if e.get("event") == "result" and e.get("when") in ("call", "teardown")}
    pending = [t for t in begun if t not in ended]
    return pending[-1].split("::")[-1] if pending else None


def unrun_failures(evidence: TestEvidence, required: Collection[str]) -> list[CheckFailure]:
    """A failure for each required test id that did not run and pass: skipped, xfail,
    unfinished, or without a result. Failed ones are the report's own failures."""
    failures = []
    for nodeid in sorted(required):
        state = evidence.outcome.get(nodeid)
        label = short_name(nodeid)
        if state in ("skipped", "xfail"):
            reason = evidence.reason.get(nodeid) or ""
            what = "marked xfail" if state == "xfail" else "skipped"
            failures.append(_failure(label, "NotRun", f"did not run: {what}{f' ({reason})' if reason else ''}; "
                                     "a test that does not run is not a pass"))
        elif state == "unfinished":
            failures.append(_failure(label, "NotRun", UNFINISHED))
        elif state is None:
            failures.append(_failure(label, "NotRun", NO_RESULT))
    return failures


def _wrong_values(events: list[dict], evidence: TestEvidence, watched: Sequence[WatchedAssert]) -> dict[str, CheckFailure]:
    """Failures the host finds in tests the report says passed, by test id: a watched comparison whose
    values, compared here as plain data, disagree (or whose computed side is not plain data
    against a plain other side), and an assert such a test always runs that never reported."""
    by_index = {check.index: check for check in watched}
    passed = {test for test, state in evidence.outcome.items() if state == "passed"}
    tally = _tally(events, by_index)
    failures: dict[str, CheckFailure] = {}
    for nodeid in sorted(passed):
        name = nodeid.split("::")[-1]
        for check in watched:
            if check.test != test_path(nodeid):
                continue
            pairs = tally.values.get((nodeid, check.index), [[], []])
            ran = all(pairs[side] for side in range(len(check.sides)))
            if check.required and not ran:
                failures.setdefault(nodeid, _failure(
                    name, "NotRun", f"the assert on tests.py line {check.line} never ran, yet the test was "
                    "reported passed"))
        for (test, index), (lefts, rights) in tally.values.items():
            if test != nodeid:
                continue
            counts = tally.compared.get((test, index))
            if counts is None or counts[0] < len(lefts):
                failures.setdefault(nodeid, _failure(
                    name, "NotCounted", f"the assert on tests.py line {by_index[index].line} reported values but "
                    "not how often it was checked, yet the test was reported passed"))
                continue
            if counts[1]:
                failures.setdefault(nodeid, _failure(
                    name, "ValueMismatch", f"tests.py line {by_index[index].line}: {counts[1]} of {counts[0]} "
                    "checks of this assert do not hold on plain data, yet the test was reported passed"))
            check = by_index[index]
            if check.op is None:
                problems = [_untrue(check, _side(check, 0, seen)) for seen in lefts]
            else:
                problems = [_disagreement(check, _side(check, 0, left), _side(check, 1, right))
                            for left, right in zip(lefts, rights)]
            problem = next((p for p in problems if p), None)
            if problem:
                failures.setdefault(nodeid, _failure(name, *problem))
    return failures


def _tally(events: list[dict], by_index: dict[int, WatchedAssert]) -> _Tally:
    tally = _Tally()
    for event in events:
        index, test = event.get("check"), event.get("test")
        if not isinstance(test, str) or index not in by_index:
            continue
        if event.get("event") == "value" and event.get("side") in (0, 1):
            tally.values[(test, index)][event["side"]].append(_decoded(event))
        elif event.get("event") == "compared":
            tally.compared[(test, index)] = (event["count"], event["failed"])
    return tally


def _side(check: WatchedAssert, side: int, recorded: _Plain) -> _Plain:
    """The host's own value for a side the tests write out; else what was recorded."""
    literal = check.literals[side]
    return recorded if literal is NO_LITERAL else _Plain(value=literal)


def _untrue(check: WatchedAssert, seen: _Plain) -> tuple[str, str] | None:
    """(exception, message) when the host cannot agree that the tested value of an assert
    that is not a comparison is true."""
    if seen.object_type is not None or seen.too_big or bool(seen.value):
        return None
    return ("ValueMismatch", f"tests.py line {check.line}: the value tested is {_short(seen.value)}, which is "
            "false, yet the test was reported passed")


def _disagreement(check: WatchedAssert, left: _Plain, right: _Plain) -> tuple[str, str] | None:
    """(exception, message) when the host cannot agree that `left op right` holds."""
    if left.object_type is not None or right.object_type is not None or left.too_big or right.too_big:
        return None  # an object (its own comparison decides, as in plain pytest), or too big to send: checked there
    assert check.op is not None
    try:
        holds = bool(COMPARISONS[check.op](left.value, right.value))
    except TypeError as exc:
        holds, detail = False, f" ({exc})"
    else:
        detail = ""
    if holds:
        return None
    return ("ValueMismatch", f"tests.py line {check.line}: {_short(left.value)} {check.op} {_short(right.value)} "
            f"does not hold{detail}, yet the test was reported passed")


def unfaithful(report: Report) -> str | None:
    """The first thing that did not cross faithfully between the tests and the module form's
    candidate, and in which test (its name; "collecting" when no test ran); None if nothing."""
    for event in report.events:
        if event.get("event") == "unfaithful":
            return f"{short_name(event['test']) or 'collecting'}: {event['reason']}"
    return None


def reported_results(events: list[dict]) -> dict[str, tuple[Any, str | None]]:
    """Per test (its short name), the first value its side 0 reported, decoded here, and why
    it has none: what the test raised, or what the value was instead of plain data. For tests
    of one call each (the benchmark's hidden check: codeheal_bench/hidden.py)."""
    found: dict[str, tuple[Any, str | None]] = {}
    for event in events:
        name = short_name(event["test"]) if isinstance(event.get("test"), str) else None
        if name is None or name in found:
            continue
        if event.get("event") == "value" and event.get("side") == 0:
            seen = _decoded(event)
            if seen.object_type is not None:
                found[name] = (None, f"the result is a {seen.object_type}, not plain data: its comparisons are its own")
            elif seen.too_big:
                found[name] = (None, "the result is too big to compare")
            else:
                found[name] = (seen.value, None)
        elif event.get("event") == "result" and event.get("outcome") == "failed":
            found[name] = (None, f"{event.get('exception', 'Error')}: {event.get('message', '')}".rstrip(": "))
    return found


def _decoded(event: dict) -> _Plain:
    if "plain" in event:
        try:
            return _Plain(value=unplain(event["plain"]))
        except (ValueError, TypeError, KeyError, IndexError, ArithmeticError, RecursionError):
            return _Plain(object_type="unreadable value")
    if "big" in event:
        return _Plain(too_big=True)
    return _Plain(object_type=str(event.get("object", "object"))[:100])


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _failure(test: str, exception: str, message: str) -> CheckFailure:
    return CheckFailure(test=test, exception=exception, message=message, line=None, frames=[],
                        expected=None, actual=None)
